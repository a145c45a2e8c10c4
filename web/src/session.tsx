import { createContext, useContext } from 'react';
import { useParams } from 'wouter';
import type { Me, Workspace } from './api/queries';

/** The signed-in account, provided by the Shell to every page under it. */
export const MeContext = createContext<Me | null>(null);

export interface CurrentWorkspace extends Workspace {
  /** Owners and admins change things; members only look (the permission matrix). */
  canChange: boolean;
}

/** The workspace of the current route, or undefined when the account is not a member of it. */
export function useCurrentWorkspace(): CurrentWorkspace | undefined {
  const me = useContext(MeContext);
  const { workspaceId } = useParams<{ workspaceId: string }>();
  const workspace = me?.workspaces.find((w) => w.id === workspaceId);
  return workspace ? { ...workspace, canChange: workspace.role !== 'member' } : undefined;
}
