import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createOffer, type SectionInput } from '../../src/domain/offer-actions.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { offerRow, workspaceWithOwner } from './fixtures.js';

/**
 * openapi.yaml "Offer" value: "Recommended package of the first visible pricing section; if none, the
 * first package; if none, amount 0" (our reading is written down in src/domain/value.ts).
 */
const pricing = (id: string, packages: [number, boolean?][], visible = true): SectionInput => ({
  id,
  kind: 'pricing',
  visible,
  packages: packages.map(([amount, recommended], i) => ({ name: `Package ${i + 1}`, amount, recommended })),
});
const text: SectionInput = { id: 'intro', kind: 'text', body: 'Hello' };

const CASES: { name: string; sections: SectionInput[]; value: number }[] = [
  { name: 'no sections at all', sections: [], value: 0 },
  { name: 'only text sections', sections: [text], value: 0 },
  { name: 'the recommended package of the only pricing section', sections: [text, pricing('p', [[100], [200, true], [300]])], value: 200 },
  { name: 'the first package when none is recommended', sections: [pricing('p', [[150], [250]])], value: 150 },
  { name: 'a pricing section without packages', sections: [pricing('p', [])], value: 0 },
  {
    name: 'the first visible pricing section, skipping a hidden one before it',
    sections: [pricing('hidden', [[999, true]], false), pricing('shown', [[10], [20, true]])],
    value: 20,
  },
  {
    name: 'only the first visible pricing section, not a later one',
    sections: [pricing('first', [[5]]), pricing('second', [[500, true]])],
    value: 5,
  },
  {
    name: '0 when the first visible pricing section is empty, even if a later one has packages',
    sections: [pricing('empty', []), pricing('later', [[700]])],
    value: 0,
  },
  { name: 'only hidden pricing sections', sections: [pricing('hidden', [[999]], false)], value: 0 },
  { name: 'a package of amount 0 that is recommended', sections: [pricing('p', [[100], [0, true]])], value: 0 },
  { name: 'the largest exact amount', sections: [pricing('p', [[Number.MAX_SAFE_INTEGER]])], value: Number.MAX_SAFE_INTEGER },
];

let db: TestDatabase;
const clock = new ManualClock();
let workspaceId: string;

beforeAll(async () => {
  db = await freshDatabase();
  ({ workspaceId } = await workspaceWithOwner(db.sql, clock));
});
afterAll(async () => {
  await db.drop();
});

describe('value', () => {
  it.each(CASES)('is $value for $name', async ({ sections, value }) => {
    const { id } = await createOffer(db.sql, clock, { workspaceId, title: 'Value', sections });
    expect((await offerRow(db.sql, id)).value_amount).toBe(value);
  });
});

it('two recommended packages in one section are refused', async () => {
  await expect(
    createOffer(db.sql, clock, { workspaceId, title: 'x', sections: [pricing('p', [[1, true], [2, true]])] }),
  ).rejects.toMatchObject({ code: 'invalid_input' });
});

it('a text section holding packages is refused', async () => {
  await expect(
    createOffer(db.sql, clock, {
      workspaceId,
      title: 'x',
      sections: [{ id: 't', kind: 'text', packages: [{ name: 'a', amount: 1 }] }],
    }),
  ).rejects.toMatchObject({ code: 'invalid_input' });
});

it('a negative or fractional amount is refused', async () => {
  for (const amount of [-1, 1.5]) {
    await expect(
      createOffer(db.sql, clock, { workspaceId, title: 'x', sections: [pricing('p', [[amount]])] }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  }
});
