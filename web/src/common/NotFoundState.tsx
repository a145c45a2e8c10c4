import { Link } from 'wouter';

export function NotFoundState(props: { what: string }) {
  return (
    <section>
      <h1 tabIndex={-1}>Not found</h1>
      <p>
        This {props.what} does not exist, or it belongs to a workspace you are not a member of. Pick a
        workspace above, or go to the <Link href="/">start page</Link>.
      </p>
    </section>
  );
}
