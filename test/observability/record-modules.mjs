// Loaded with `node --import` after tsx: records the URL of every module the process resolves
// through the ES module loader into the file named by RECORD_MODULES_FILE (one per line), so a
// test can tell which packages a command loaded (tracing.test.ts: no SDK while tracing is off).
import { register } from 'node:module';

register('./record-modules-hooks.mjs', import.meta.url);
