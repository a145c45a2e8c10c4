import { useEffect, useRef, type ReactNode } from 'react';

/**
 * The page's h1 with its main actions beside it. It takes focus when the page opens, so after
 * a client-side navigation a screen reader starts at the new page, not at the old link.
 */
export function PageHeading(props: { title: string; children?: ReactNode; sub?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Offerdesk console`;
    if (document.activeElement === document.body || document.activeElement?.closest('nav')) ref.current?.focus();
  }, [props.title]);
  return (
    <div className="page-heading">
      <div>
        <h1 ref={ref} tabIndex={-1}>
          {props.title}
        </h1>
        {props.sub}
      </div>
      {props.children ? <div className="actions">{props.children}</div> : null}
    </div>
  );
}
