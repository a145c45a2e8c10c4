import { useMutation } from '@tanstack/react-query';
import { api, call, errorMessage } from '../api/client';

/** How long an emailed link works (console-api.yaml requestSignInLink, requestPasswordReset). */
export const LINK_MINUTES = 15;

/**
 * Asks for an emailed link (sign-in or password reset) for the address typed above it. The server
 * answers the same whether or not the address has an account, so the page says "if".
 */
export function useEmailLink(kind: 'sign-in' | 'reset') {
  return useMutation({
    mutationFn: (email: string) =>
      call(kind === 'sign-in' ? api.POST('/session/link-request', { body: { email } }) : api.POST('/password-reset', { body: { email } })),
    meta: { ownUnauthorized: true },
  });
}

export function EmailLinkStatus(props: { request: ReturnType<typeof useEmailLink>; what: string }) {
  const { request } = props;
  return (
    <>
      <div role="status">
        {request.isSuccess ? (
          <p className="notice">
            If {request.variables} has an account, {props.what} is on its way. It works once, within {LINK_MINUTES} minutes.
          </p>
        ) : null}
      </div>
      {request.isError ? (
        <p role="alert" className="error">
          {errorMessage(request.error)}
        </p>
      ) : null}
    </>
  );
}
