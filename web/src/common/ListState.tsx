import type { ReactNode } from 'react';
import { errorMessage } from '../api/client';

interface QueryLike {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch: () => unknown;
}

/**
 * Loading and error states of anything fetched: "Loading API keys…" while it loads (a status
 * region, so screen readers hear it), the error with what to do and "Try again" when it fails.
 * Renders nothing once data is there.
 */
export function ListState(props: { query: QueryLike; what: string }) {
  const { query } = props;
  if (query.isPending) {
    return (
      <p role="status" className="loading">
        Loading {props.what}…
      </p>
    );
  }
  if (query.isError) {
    return (
      <div role="alert" className="error-box">
        <p>
          Could not load {props.what}. {errorMessage(query.error)}
        </p>
        <button type="button" onClick={() => void query.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  return null;
}

export function EmptyState(props: { children: ReactNode }) {
  return <div className="empty">{props.children}</div>;
}

/** "Load more" under a cursor-paged list. */
export function MoreButton(props: { query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown } }) {
  const { query } = props;
  if (!query.hasNextPage) return null;
  return (
    <button type="button" className="more" disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
      {query.isFetchingNextPage ? 'Loading…' : 'Load more'}
    </button>
  );
}
