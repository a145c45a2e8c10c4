import { CliError } from './context.js';

/**
 * Reads one line from stdin: typed without echo when stdin is a terminal (the prompt goes to
 * stderr), or the first line of piped input (`echo "$PASSWORD" | offerdesk account set-password`).
 */
export async function readSecretLine(prompt: string, input: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (input.isTTY) return readWithoutEcho(prompt, input);
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  const line = text.split(/\r?\n/, 1)[0] ?? '';
  if (line.length === 0) throw new CliError('no password on standard input; pipe it in or type it at the prompt');
  return line;
}

function readWithoutEcho(prompt: string, input: NodeJS.ReadStream): Promise<string> {
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new CliError('cancelled'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.on('data', onData);
  });
}
