import { parseArgs } from 'node:util';

/** `npm run soak [-- options]` (docs/reliability.md "Soak"). */
export type SoakOptions = ReturnType<typeof parseOptions>;

const USAGE = `usage: npm run soak [-- options]
  --minutes <n>         minutes of traffic and faults (default 60; CI runs 2)
  --no-upgrade-drill    skip the drill with a worker built from the commit before the newest migration
  --keep                keep the working directory (process logs under logs/)
  --help`;

/** Bad options: one line of reason on stderr, exit 2. */
function fail(reason: string): never {
  process.stderr.write(`soak: ${reason}\n`);
  process.exit(2);
}

export function parseOptions(argv: string[]) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        minutes: { type: 'string', default: '60' },
        'no-upgrade-drill': { type: 'boolean', default: false },
        keep: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const minutes = Number(values.minutes);
  if (!/^\d+(\.\d+)?$/.test(values.minutes ?? '') || !Number.isFinite(minutes) || minutes < 1 || minutes > 24 * 60) {
    fail(`--minutes must be a number of minutes from 1 to 1440, got "${values.minutes}"`);
  }
  return { minutes, upgradeDrill: !values['no-upgrade-drill'], keep: values.keep };
}
