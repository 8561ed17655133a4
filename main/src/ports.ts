import net from 'node:net';

/**
 * Whether a port can be bound on a host right now.
 * @param port the port.
 * @param host the bind address.
 * @returns true when a listener could be opened (and was closed again).
 */
export function isPortFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/**
 * The port to start the server on: the preferred one when free, else 0 so the server takes any
 * free port itself (picking a number here would race with other programs until the server binds).
 * @param preferred the configured port.
 * @param host the bind address.
 * @returns the port to pass as PORT.
 */
export async function choosePort(preferred: number, host: string): Promise<number> {
  return (await isPortFree(preferred, host)) ? preferred : 0;
}
