import type { Command } from 'commander';
import type { Clock } from '../../clock.js';
import type { Sql } from '../../db/connect.js';
import {
  acceptOffer,
  createOffer,
  editOffer,
  expireOffer,
  failCode,
  requestCode,
  sendOffer,
  signOffer,
  useCalculator,
  verifyCode,
  viewOffer,
  viewSection,
  viewSummary,
  withdrawOffer,
  type ActionResult,
  type SectionInput,
} from '../../domain/offer-actions.js';
import { DEFAULT_LISTED_OFFERS, listOffers, MAX_LISTED_OFFERS } from '../../domain/listings.js';
import { OFFER_STATUSES } from '../../domain/offer-state.js';
import { CliError, parseIsoTime, parseWholeNumber, readJsonFile, type CliContext } from '../context.js';

/**
 * `offerdesk offer ...`: one subcommand per product action. Every action
 * takes `--at ISO` to record it at a past time.
 */

interface Common {
  at?: Date;
  json?: boolean;
}

/** `--pricing FILE.json`: the sections array, or an object with a `sections` array. */
function readSections(path: string): SectionInput[] {
  const content = readJsonFile(path, 'pricing file');
  const sections = Array.isArray(content) ? content : (content as { sections?: unknown } | null)?.sections;
  if (!Array.isArray(sections)) throw new CliError(`pricing file ${path} must hold an array of sections or {"sections": [...]}`);
  return sections as SectionInput[];
}

function output(result: ActionResult & { accepted?: boolean }) {
  return {
    id: result.offerId,
    status: result.status,
    version: result.version,
    sequence: result.sequence,
    ...(result.accepted === undefined ? {} : { accepted: result.accepted }),
  };
}

export function register(program: Command, ctx: CliContext): void {
  const offer = program.command('offer').description('offers and the product actions on them');

  offer
    .command('list')
    .description(`a workspace's offers, newest first (at most ${MAX_LISTED_OFFERS})`)
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--status <status>', `only this status: ${OFFER_STATUSES.join(', ')}`)
    .option('--limit <n>', `how many (default ${DEFAULT_LISTED_OFFERS})`, parseWholeNumber)
    .option('--json', 'print one JSON object')
    .action((options: { workspace: string; status?: string; limit?: number; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql }) => ({ data: await listOffers(sql, { workspaceId: options.workspace, status: options.status, limit: options.limit }) }),
        (r) =>
          r.data.length === 0
            ? 'no offers'
            : r.data.map((o) => `${o.id}  ${o.status.padEnd(9)}  ${o.created_at.toISOString()}  ${o.title}`).join('\n'),
      ),
    );

  /** Adds `offer <name> <offerId>` running one action; prints {id, status, version, sequence}. */
  function action<O extends Common>(
    name: string,
    description: string,
    configure: (command: Command) => Command,
    run: (sql: Sql, clock: Clock, offerId: string, options: O) => Promise<ActionResult & { accepted?: boolean }>,
    done: string,
  ): void {
    const command = offer.command(`${name} <offerId>`).description(description);
    configure(command)
      .option('--at <iso>', 'record the action at this past time (ISO 8601)', parseIsoTime)
      .option('--json', 'print one JSON object')
      .action((offerId: string, options: O) =>
        ctx.run(
          options,
          async ({ sql, clock }) => output(await run(sql, clock, offerId, options)),
          (r) => `offer ${r.id} ${done}: ${r.status}${r.version === null ? '' : `, version ${r.version}`}, timeline entry ${r.sequence}`,
        ),
      );
  }

  offer
    .command('create')
    .description('create a draft offer → {id}')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--title <title>', 'offer title')
    .option('--currency <code>', 'ISO 4217 currency (default: the workspace currency)')
    .option('--pricing <file>', 'JSON file with the sections: [{id, kind: "text"|"pricing", title?, body?, visible?, packages?}]')
    .option('--at <iso>', 'record the creation at this past time (ISO 8601)', parseIsoTime)
    .option('--json', 'print one JSON object')
    .action((options: { workspace: string; title: string; currency?: string; pricing?: string } & Common) =>
      ctx.run(
        options,
        ({ sql, clock }) =>
          createOffer(sql, clock, {
            workspaceId: options.workspace,
            title: options.title,
            currency: options.currency,
            sections: options.pricing === undefined ? undefined : readSections(options.pricing),
            at: options.at,
          }),
        (r) => `offer ${r.id} created as a draft`,
      ),
    );

  action<{ title?: string; pricing?: string } & Common>(
    'edit',
    'edit the title or sections of a draft or sent offer',
    (c) => c.option('--title <title>', 'new title').option('--pricing <file>', 'JSON file with the new sections'),
    (sql, clock, offerId, o) =>
      editOffer(sql, clock, {
        offerId,
        title: o.title,
        sections: o.pricing === undefined ? undefined : readSections(o.pricing),
        at: o.at,
      }),
    'edited',
  );

  action<{
    recipientEmail: string;
    recipientName?: string;
    recipientCompany?: string;
    expiresAt: Date;
    signers?: number;
    message?: string;
  } & Common>(
    'send',
    'send a draft, or send a sent offer again as a new version',
    (c) =>
      c
        .requiredOption('--recipient-email <email>', 'recipient email')
        .option('--recipient-name <name>', 'recipient name')
        .option('--recipient-company <company>', 'recipient company')
        .requiredOption('--expires-at <iso>', 'deadline for acceptance (ISO 8601)', parseIsoTime)
        .option('--signers <n>', 'signatures needed, 1 to 20 (default 1)', parseWholeNumber)
        .option('--message <text>', 'message to the recipient'),
    (sql, clock, offerId, o) =>
      sendOffer(sql, clock, {
        offerId,
        recipientEmail: o.recipientEmail,
        recipientName: o.recipientName,
        recipientCompany: o.recipientCompany,
        expiresAt: o.expiresAt,
        signers: o.signers,
        message: o.message,
        at: o.at,
      }),
    'sent',
  );

  action<{ section?: string; durationMs?: number; ip?: string; userAgent?: string } & Common>(
    'view',
    'record a view of the public page, or with --section a view of one section',
    (c) =>
      c
        .option('--section <sectionId>', 'section viewed (needs --duration-ms)')
        .option('--duration-ms <n>', 'time spent on the section in milliseconds', parseWholeNumber)
        .option('--ip <address>', 'viewer IP address (kept, never returned)')
        .option('--user-agent <ua>', 'viewer browser (kept, never returned)'),
    (sql, clock, offerId, o) => {
      if (o.section === undefined) {
        if (o.durationMs !== undefined) throw new CliError('--duration-ms needs --section');
        return viewOffer(sql, clock, { offerId, ip: o.ip, userAgent: o.userAgent, at: o.at });
      }
      if (o.durationMs === undefined) throw new CliError('--section needs --duration-ms');
      return viewSection(sql, clock, { offerId, sectionId: o.section, durationMs: o.durationMs, at: o.at });
    },
    'viewed',
  );

  action<Common>('calculator', 'record a use of the price calculator', (c) => c, (sql, clock, offerId, o) =>
    useCalculator(sql, clock, { offerId, at: o.at }), 'calculator used');
  action<Common>('summary', 'record a view of the summary', (c) => c, (sql, clock, offerId, o) =>
    viewSummary(sql, clock, { offerId, at: o.at }), 'summary viewed');

  const codeSteps = [
    ['code-request', 'record that a signer requested an acceptance code', requestCode, 'code requested'],
    ['code-fail', 'record a wrong acceptance code', failCode, 'code failed'],
    ['code-verify', 'record a verified acceptance code', verifyCode, 'code verified'],
  ] as const;
  for (const [name, description, step, done] of codeSteps) {
    action<{ signerEmail: string } & Common>(
      name,
      description,
      (c) => c.requiredOption('--signer-email <email>', 'signer email'),
      (sql, clock, offerId, o) => step(sql, clock, { offerId, signerEmail: o.signerEmail, at: o.at }),
      done,
    );
  }

  action<{ signerName: string; signerEmail: string; role?: string } & Common>(
    'sign',
    'one signer of a multi-signer offer signs; the last signature accepts the offer',
    (c) =>
      c
        .requiredOption('--signer-name <name>', 'signer name')
        .requiredOption('--signer-email <email>', 'signer email')
        .option('--role <role>', 'signer role, e.g. CFO'),
    (sql, clock, offerId, o) =>
      signOffer(sql, clock, { offerId, signerName: o.signerName, signerEmail: o.signerEmail, role: o.role, at: o.at }),
    'signed',
  );

  action<{ signerName: string; signerEmail: string } & Common>(
    'accept',
    'the recipient accepts a single-signer offer',
    (c) => c.requiredOption('--signer-name <name>', 'signer name').requiredOption('--signer-email <email>', 'signer email'),
    (sql, clock, offerId, o) => acceptOffer(sql, clock, { offerId, signerName: o.signerName, signerEmail: o.signerEmail, at: o.at }),
    'accepted',
  );

  action<Common>('withdraw', 'the sender withdraws a sent offer', (c) => c, (sql, clock, offerId, o) =>
    withdrawOffer(sql, clock, { offerId, at: o.at }), 'withdrawn');
  action<Common>('expire', 'expire a sent offer whose deadline has passed', (c) => c, (sql, clock, offerId, o) =>
    expireOffer(sql, clock, { offerId, at: o.at }), 'expired');
}
