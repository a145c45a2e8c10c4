import { createHttpServer, listen } from '../../../src/http-server.js';
import { profileOnSignal } from './profile.js';
import { createRung, RUNGS, rungConfig, type Rung } from './rungs.js';

/**
 * One rung of the stack-floor ladder in a process of its own, so its CPU time is its own:
 *   node --import tsx scripts/bench/stack-floor/server.ts <bare|express|openapi|service> <port>
 * Every rung runs in the service's HTTP server (src/http-server.ts, the same timeouts and limits),
 * so only the stack on top differs. With STACK_FLOOR_PROFILE set to a file, SIGUSR2 starts a CPU
 * profile and the next SIGUSR2 writes it there: the profile covers the measured load only, not
 * start-up.
 */
const [rungArg, portArg] = process.argv.slice(2);
if (!RUNGS.includes(rungArg as Rung) || !portArg) {
  process.stderr.write(`usage: server.ts <${RUNGS.join('|')}> <port>\n`);
  process.exit(2);
}
const config = rungConfig(Number(portArg));
const { listener, classes } = await createRung(rungArg as Rung, config);
const server = await listen(createHttpServer(listener, config.http, classes), config.port, config.host);

const profileFile = process.env.STACK_FLOOR_PROFILE;
if (profileFile) profileOnSignal(profileFile);

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
