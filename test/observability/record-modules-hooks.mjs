// The resolve hook of record-modules.mjs (it runs on the loader's thread).
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (process.env.RECORD_MODULES_FILE) appendFileSync(process.env.RECORD_MODULES_FILE, `${resolved.url}\n`);
  return resolved;
}
