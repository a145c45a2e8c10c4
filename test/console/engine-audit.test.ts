import { describe, expect, it } from 'vitest';
import { listAuditEntries } from '../../src/domain/audit.js';
import { FAIL, endpoint, runSchedulesToEnd, sentOffer, useEngineFixture, workspace } from '../webhooks/engine/helpers.js';

const f = useEngineFixture();

describe('the webhook engine in the audit log', () => {
  it('records the automatic pause after 5 final failures, with no acting account', async () => {
    f.sender.reply(() => FAIL);
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    for (let i = 0; i < 5; i++) await sentOffer(f, ws.workspaceId, `Offer ${i}`);
    await runSchedulesToEnd(f);

    const entries = await listAuditEntries(f.sql, { workspaceId: ws.workspaceId, limit: 10, after: null });
    const paused = entries.filter((e) => e.action === 'endpoint.paused');
    expect(paused).toHaveLength(1);
    expect(paused[0]).toMatchObject({
      actor_id: null,
      actor_label: 'webhook engine',
      target_type: 'endpoint',
      target_id: ep.id,
      details: { reason: 'failures', failures_in_a_row: 5 },
    });
  });
});
