// Test files assert on the exact shape of every body they read, so `any` from res.json() keeps
// those assertions readable; production code never relies on this declaration (tests only).
export {};

declare global {
  interface Response {
    json(): Promise<any>;
  }
}
