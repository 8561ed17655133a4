import { randomBytes, timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Aedes, type AuthenticateError } from 'aedes';
import { filterWithin, hashDevicePassword, topicMatches } from '../domain/mqtt.ts';
import type { MqttLink } from '../store/mqttLinks.ts';

const USERNAME = Symbol('username');

/** The links the broker admits, by username; the bridge keeps it current. */
export type LinkDirectory = (username: string) => MqttLink | undefined;

/** The username Flexsite's own client uses on the embedded broker (a link's is `link-<id>`). */
export const SERVER_USERNAME = 'flexsite';

/** The topics an out-link's device may subscribe to: its setpoint, plan and status. */
export const setpointTopics = (link: MqttLink) => `${link.topic}/#`;

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * An MQTT broker inside the server for sites without one. Nobody connects without credentials:
 * Flexsite's own client with a secret made at start, a device with its link's. A device may
 * publish only on its in-link's topic and subscribe only to its out-link's topics.
 */
export class EmbeddedBroker {
  /** The server's own client's password, new at every start and never stored. */
  readonly serverPassword = randomBytes(32).toString('base64url');
  private aedes: Aedes | undefined;
  private server: net.Server | undefined;

  constructor(private readonly links: LinkDirectory) {}

  /** Opens the broker's port. @returns the port it listens on. */
  async listen(host: string, port: number): Promise<number> {
    const aedes = await Aedes.createBroker({
      authenticate: (client, username, password, done) => {
        const [error, ok] = this.authenticate(username, password);
        if (ok) (client as unknown as Record<symbol, string | undefined>)[USERNAME] = username;
        done(error, ok);
      },
      authorizePublish: (client, packet, done) => {
        // Publishes of the broker itself (a will, a retained message) carry no client.
        const username = client ? usernameOf(client) : SERVER_USERNAME;
        const link = username === SERVER_USERNAME ? undefined : this.links(username);
        if (username === SERVER_USERNAME || (link?.direction === 'in' && topicMatches(link.topic, packet.topic))) done(null);
        else done(new Error(`${username} may not publish on ${packet.topic}`));
      },
      authorizeSubscribe: (client, sub, done) => {
        const username = usernameOf(client);
        const link = username === SERVER_USERNAME ? undefined : this.links(username);
        // A refused subscription is granted nothing (SUBACK 0x80); the connection stays.
        if (username === SERVER_USERNAME || (link?.direction === 'out' && filterWithin(sub.topic, setpointTopics(link)))) done(null, sub);
        else done(null, null);
      },
    });
    const server = net.createServer(aedes.handle);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    this.aedes = aedes;
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  private authenticate(username: string | undefined, password: Buffer | undefined): [AuthenticateError | null, boolean] {
    const given = password?.toString() ?? '';
    if (username === SERVER_USERNAME && sameSecret(given, this.serverPassword)) return [null, true];
    const link = username === undefined ? undefined : this.links(username);
    if (link && sameSecret(hashDevicePassword(given), link.passwordHash)) return [null, true];
    const refused = new Error('Bad username or password') as AuthenticateError;
    refused.returnCode = 4;
    return [refused, false];
  }

  /** Closes the port and every connection. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.aedes ? this.aedes.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The username a client connected with; aedes keeps none, so `authenticate` records it on the client. */
function usernameOf(client: object): string {
  return (client as Record<symbol, string | undefined>)[USERNAME] ?? '';
}
