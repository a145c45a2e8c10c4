/**
 * `tsx contract-tests/lib/console-session.ts` (inside with-server.ts): signs the fixture owner in
 * to the console API and prints the session token (the value of the `offerdesk_session` cookie).
 */
const base = process.env.CONTRACT_BASE_URL!.replace(/\/api\/v1$/, '');
const answer = await fetch(`${base}/console/api/session`, {
  method: 'POST',
  headers: { origin: base, 'content-type': 'application/json' },
  body: JSON.stringify({ email: process.env.CONTRACT_CONSOLE_EMAIL, password: process.env.CONTRACT_CONSOLE_PASSWORD }),
});
const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('offerdesk_session='));
if (answer.status !== 200 || !cookie) {
  process.stderr.write(`console-session: sign-in failed with ${answer.status}: ${await answer.text()}\n`);
  process.exit(1);
}
process.stdout.write(`${cookie.split(';')[0]!.slice('offerdesk_session='.length)}\n`);
