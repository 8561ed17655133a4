import { Children, cloneElement, Fragment, isValidElement, type ReactElement, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { Loaded } from '../hooks/useApi.ts';
import { Empty, ErrorNotice, Loading } from './Status.tsx';

interface TableProps<T> {
  /** The table's accessible name. */
  label?: string;
  /** The column headings; a false one is a column left out (e.g. actions for readers). */
  columns: (string | false)[];
  rows: readonly T[];
  /** One `<tr>` a row. */
  row: (item: T) => ReactNode;
  /** What shows instead of the table when there are no rows; without it an empty table shows. */
  empty?: ReactNode;
  /** The class of the scrolling box around the table, or null for none. */
  wrap?: string | null;
}

/** A row's cells, with those a fragment groups (`LinkTable`'s `cells`) taken out of it. */
function cellsOf(children: ReactNode): ReactNode[] {
  return Children.toArray(children).flatMap((child) =>
    isValidElement<{ children?: ReactNode }>(child) && child.type === Fragment ? cellsOf(child.props.children) : [child],
  );
}

/**
 * A row whose cells carry their column's heading as `data-label`, which a narrow screen shows
 * above each value once the row is stacked as a block (app.css, `.stack-narrow`).
 */
function labelled(row: ReactNode, headings: string[]): ReactNode {
  if (!isValidElement<{ children?: ReactNode }>(row)) return row;
  const cells = cellsOf(row.props.children).map((cell, i) =>
    isValidElement(cell) ? cloneElement(cell as ReactElement<{ 'data-label'?: string }>, { 'data-label': headings[i] }) : cell,
  );
  return cloneElement(row, undefined, ...cells);
}

/**
 * A table of rows under column headings, or what shows when there are none. On a phone each row
 * stacks into a block with every cell under its heading, so that no column sits off-screen.
 */
export function DataTable<T>({ label, columns, rows, row, empty, wrap = 'table-wrap' }: TableProps<T>) {
  if (empty !== undefined && rows.length === 0) return <Empty>{empty}</Empty>;
  const headings = columns.filter((c): c is string => c !== false);
  const table = (
    <table aria-label={label} className="stack-narrow">
      <thead>
        <tr>
          {columns.map(
            (c, i) =>
              c !== false && (
                <th key={i} scope="col">
                  {c}
                </th>
              ),
          )}
        </tr>
      </thead>
      <tbody>{rows.map((item) => labelled(row(item), headings))}</tbody>
    </table>
  );
  return wrap === null ? table : <div className={wrap}>{table}</div>;
}

interface LinkTableProps<T> extends Omit<TableProps<T>, 'row'> {
  /** The page of what a row is about, and the text that links to it (mostly its name). */
  link: (item: T) => { to: string; text: ReactNode };
  /** The row's other cells, a `<td>` a column (in a fragment). */
  cells: (item: T) => ReactNode;
}

/** A table of things that each have their own page: every row is headed by a link to it. */
export function LinkTable<T>({ link, cells, ...table }: LinkTableProps<T>) {
  return (
    <DataTable
      {...table}
      row={(item) => {
        const { to, text } = link(item);
        return (
          <tr key={to}>
            <RowLink to={to}>{text}</RowLink>
            {cells(item)}
          </tr>
        );
      }}
    />
  );
}

/** What an API read shows: its error, a loading line while there is nothing yet, then its data. */
export function LoadedView<T>({ state, what, children }: { state: Loaded<T>; what: string; children: (data: T) => ReactNode }) {
  return (
    <>
      <ErrorNotice error={state.error} />
      {state.data === undefined ? state.loading && <Loading what={what} /> : children(state.data)}
    </>
  );
}

/** A row's heading that links to the page of what the row is about. */
export function RowLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <th scope="row">
      <Link to={to}>{children}</Link>
    </th>
  );
}
