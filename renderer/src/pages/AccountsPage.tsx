import { API } from '../api/client.ts';
import { LinkTable, LoadedView } from '../components/DataTable.tsx';
import { useApi } from '../hooks/useApi.ts';
import * as wire from '../api/contracts.ts';

/** The accounts the user may see: all of them for admins, their own for account-admins. */
export function AccountsPage() {
  const accounts = useApi(`${API}/accounts`, undefined, wire.accountList);
  return (
    <section className="page" aria-labelledby="accounts-title">
      <h1 id="accounts-title">Accounts</h1>
      <LoadedView state={accounts} what="Loading accounts">
        {(list) => (
          <LinkTable
            wrap="card table-wrap"
            columns={['Account', 'Account roles', 'Consultancy']}
            rows={list}
            empty="No accounts."
            link={(a) => ({ to: `/accounts/${a.id}`, text: a.name })}
            cells={(a) => (
              <>
                <td>{a.account_roles.map((r) => r.name).join(', ') || '–'}</td>
                <td>{a.consultancy_account_id ?? '–'}</td>
              </>
            )}
          />
        )}
      </LoadedView>
    </section>
  );
}
