import type { ReactNode } from 'react';

/** One fact in a `<dl className="facts">`: a term and what it is. */
export function Fact({ term, children }: { term: ReactNode; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}
