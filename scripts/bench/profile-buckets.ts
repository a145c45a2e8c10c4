/**
 * V8 CPU profiles (`.cpuprofile`) summed by self time per bucket: package, node internal, project
 * folder, native frame, garbage collection. Shared by scripts/bench/profile-summary.ts (the read
 * bench's profiles) and scripts/bench/stack-floor/profile.ts (the stack floor's rungs), which
 * names a few frames of its own first.
 */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A name for frames a caller buckets itself, or undefined to leave the frame to `bucket`. */
export type OwnBucket = (node: ProfileNode) => string | undefined;

export function bucket(node: ProfileNode, own?: OwnBucket): string {
  const { url, functionName } = node.callFrame;
  if (functionName === '(idle)' || functionName === '(program)' || functionName === '(root)') return functionName;
  if (functionName === '(garbage collector)') return 'garbage collection';
  const named = own?.(node);
  if (named !== undefined) return named;
  if (!url) return `native: ${functionName || '(anonymous)'}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/')[0]}`;
  const project = /\/(src|dist\/src)\/([^/]+)/.exec(url);
  if (project) return `offerdesk src/${project[2]}`;
  return url;
}

/** Adds the profile's self time (µs) per bucket into `totals`, idle and root included. */
export function addSelfTime(totals: Map<string, number>, profile: Profile, own?: OwnBucket): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const key = bucket(byId.get(id)!, own);
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
}
