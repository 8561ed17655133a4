import { Link } from 'react-router';
import { API } from '../api/client.ts';
import { Empty, ErrorNotice, Loading } from '../components/Status.tsx';
import { useApi } from '../hooks/useApi.ts';
import * as wire from '../api/contracts.ts';

/** The accounts the user may see: all of them for admins, their own for account-admins. */
export function AccountsPage() {
  const accounts = useApi(`${API}/accounts`, undefined, wire.accountList);
  return (
    <section className="page" aria-labelledby="accounts-title">
      <h1 id="accounts-title">Accounts</h1>
      <ErrorNotice error={accounts.error} />
      {!accounts.data ? (
        accounts.loading && <Loading what="Loading accounts" />
      ) : accounts.data.length === 0 ? (
        <Empty>No accounts.</Empty>
      ) : (
        <div className="card table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Account roles</th>
                <th scope="col">Consultancy</th>
              </tr>
            </thead>
            <tbody>
              {accounts.data.map((a) => (
                <tr key={a.id}>
                  <th scope="row">
                    <Link to={`/accounts/${a.id}`}>{a.name}</Link>
                  </th>
                  <td>{a.account_roles.map((r) => r.name).join(', ') || '–'}</td>
                  <td>{a.consultancy_account_id ?? '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
