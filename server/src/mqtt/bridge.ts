import type { Knex } from 'knex';
import mqtt, { type IPublishPacket, type MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Uses } from '../commands/context.ts';
import { storeSensorData } from '../commands/storeSensorData.ts';
import type { MqttSettings } from '../config.ts';
import { intervalMeans, readPayload, topicMatches, type Reading } from '../domain/mqtt.ts';
import { conversion, type Conversion } from '../domain/units.ts';
import { isDomainError } from '../errors.ts';
import { Periodic } from '../periodic.ts';
import * as store from '../store/mqttLinks.ts';
import { assetLineage, getAsset } from '../store/assets.ts';
import { bufferReading, closeReadings, recordTally, type ReadingsClose } from '../store/write/mqttLinks.ts';
import { getSensor } from '../store/sensors.ts';
import { getUser } from '../store/users.ts';
import type { EmbeddedBroker } from './broker.ts';
import { currentSetpoint, sendSetpoint } from './setpoints.ts';
import { discoveryConfigs, linkBase, siteBase, siteConfigs, valueTopic, type DiscoveryConfig, type Site } from './discovery.ts';
import { moneyStates, planStates } from './haStates.ts';

/** An in-link as the bridge works with it: its sensor's resolution, the conversion to its unit, its waiting readings. */
interface InLink {
  link: store.MqttLink;
  resolutionMs: number;
  convert: Conversion;
  readings: Reading[];
  closedUntilMs: number | null;
  tally: store.MessageTally;
}

const TICK_MS = 250;
const RETRY_MS = 500;
/** How often an out-link's plan is looked at between step boundaries (a new plan, a plan going stale). */
const PLAN_LOOK_MS = 5000;
/** How often a site's money today is counted again for Home Assistant. */
const MONEY_LOOK_MS = 60_000;

/** A site of the links, for Home Assistant: its zone (its days), its money's currency as configured, when to count again. */
interface SiteEntry {
  site: Site;
  zone: string;
  currency: string | null;
  nextLookMs: number;
}

const emptyTally = (): store.MessageTally => ({ messages: 0, malformed: 0, late: 0 });

/**
 * Flexsite's side of the MQTT traffic: one client on the site's broker (or the embedded one),
 * subscribed at QoS 1 to every in-link's topic. A reading is acknowledged to the broker only once
 * it is in the store's buffer (`mqtt_reading`), so neither a broker nor a server restart loses one
 * that was acknowledged; each interval of the sensor's resolution is stored as its time-weighted
 * mean once it closes, as the device's own belief, with the current rights of the link's maker.
 */
export class MqttBridge extends Periodic {
  private client: MqttClient | undefined;
  private broker: EmbeddedBroker | undefined;
  private inLinks = new Map<number, InLink>();
  private outLinks: store.MqttLink[] = [];
  /** What each out-link was sent last (its setpoint's key), and when to look at its plan again. */
  private sent = new Map<number, { key: string; nextLookMs: number }>();
  /** Home Assistant's discovery configs, by link (`link-<id>`) and site (`site-<id>`): those wanted, those on the broker. */
  private wantedConfigs = new Map<string, DiscoveryConfig[]>();
  private publishedConfigs = new Map<string, string[]>();
  private configsDirty = true;
  private sites = new Map<number, SiteEntry>();
  private siteOf = new Map<number, SiteEntry>();
  /** The state payloads on the broker, by topic: one is sent again only when it changes. */
  private states = new Map<string, string>();
  private byUsername = new Map<string, store.MqttLink>();
  private subscribed = new Set<string>();
  /** Message ids of recent QoS 1 deliveries: a redelivery (DUP) of one of them is not a new reading. */
  private recentIds: number[] = [];
  private closing = false;
  /** The embedded broker's port, once open. */
  brokerPort: number | undefined;
  /** Settles once connected and subscribed the first time. */
  ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly data: Uses<'reader' | 'config'>,
    private readonly settings: Exclude<MqttSettings, { mode: 'off' }>,
    private readonly log: Logger,
    clock: Clock,
  ) {
    super(TICK_MS, (err) => log.error({ err }, 'closing MQTT intervals failed'), clock);
  }

  private get db(): Knex {
    return this.data.db;
  }

  /** Opens the embedded broker (if so set), loads the links and connects. */
  async open(): Promise<void> {
    await this.linksChanged();
    let url: string;
    let auth: { username?: string; password?: string };
    if (this.settings.mode === 'embedded') {
      // aedes is loaded only for the embedded broker: a site's own broker needs just the client.
      const { EmbeddedBroker, SERVER_USERNAME } = await import('./broker.ts');
      this.broker = new EmbeddedBroker((username) => this.byUsername.get(username));
      this.brokerPort = await this.broker.listen(this.settings.host, this.settings.port);
      const host = this.settings.host === '0.0.0.0' || this.settings.host === '::' ? '127.0.0.1' : this.settings.host;
      url = `mqtt://${host.includes(':') ? `[${host}]` : host}:${this.brokerPort}`;
      auth = { username: SERVER_USERNAME, password: this.broker.serverPassword };
    } else {
      url = this.settings.url;
      auth = { username: this.settings.username ?? undefined, password: this.settings.password ?? undefined };
    }
    const client = mqtt.connect(url, {
      ...auth,
      clientId: this.settings.clientId,
      clean: false,
      reconnectPeriod: 1000,
      connectTimeout: 10_000,
    });
    client.handleMessage = (packet, done) => void this.receive(packet).then(() => done(), done);
    client.on('error', (err) => this.log.warn({ err }, 'MQTT connection problem'));
    // Every (re)connection subscribes afresh: a broker that restarted without its store forgot them.
    this.ready = new Promise<void>((resolve) =>
      client.on('connect', () => {
        this.subscribed.clear();
        this.configsDirty = true;
        this.states.clear();
        this.subscribe().then(resolve, (err: unknown) => this.log.warn({ err }, 'MQTT subscription failed'));
      }),
    );
    this.client = client;
    // The embedded broker answers at once; a site's broker may be away, which must not hold the server's start.
    if (this.broker) await this.ready;
  }

  /** Reads the links again (one was added or removed) and follows them with the subscriptions. */
  async linksChanged(): Promise<void> {
    const links = await store.listMqttLinks(this.db);
    this.byUsername = new Map(links.map((l) => [l.username, l]));
    const next = new Map<number, InLink>();
    await this.followConfigs(links);
    for (const link of links.filter((l) => l.direction === 'in')) {
      const known = this.inLinks.get(link.id);
      const sensor = await getSensor(this.db, link.sensorId);
      const convert = sensor && conversion(link.unit, sensor.unit, sensor.event_resolution_ms);
      if (!sensor || !convert || sensor.event_resolution_ms <= 0) continue;
      next.set(link.id, {
        link,
        resolutionMs: sensor.event_resolution_ms,
        convert,
        readings: known?.readings ?? (await store.bufferedReadings(this.db, link.id)),
        closedUntilMs: known?.closedUntilMs ?? link.closedUntilMs,
        tally: known?.tally ?? emptyTally(),
      });
    }
    this.inLinks = next;
    this.outLinks = links.filter((l) => l.direction === 'out');
    if (this.client?.connected) await this.subscribe();
  }

  /** The discovery configs the links want: each link's, and each of their sites' (kept with its currency). */
  private async followConfigs(links: store.MqttLink[]): Promise<void> {
    const sites = new Map<number, SiteEntry>();
    this.wantedConfigs = new Map();
    this.siteOf = new Map();
    for (const link of links) {
      const sensor = await getSensor(this.db, link.sensorId);
      const asset = sensor && (await getAsset(this.db, sensor.generic_asset_id));
      if (!sensor || !asset) continue;
      const top = (await assetLineage((id) => getAsset(this.db, id), asset)).at(-1)!;
      const known = this.sites.get(top.id);
      const site = { currency: null, nextLookMs: 0, ...known, site: { id: top.id, name: top.name }, zone: sensor.timezone };
      sites.set(top.id, site);
      this.siteOf.set(link.id, site);
      this.wantedConfigs.set(`link-${link.id}`, discoveryConfigs(link, sensor, site.site));
      this.wantedConfigs.set(`site-${top.id}`, siteConfigs(site.site, site.currency));
    }
    this.sites = sites;
    this.configsDirty = true;
  }

  private async subscribe(): Promise<void> {
    const client = this.client!;
    const wanted = new Set([...this.inLinks.values()].map((l) => l.link.topic));
    const gone = [...this.subscribed].filter((t) => !wanted.has(t));
    const added = [...wanted].filter((t) => !this.subscribed.has(t));
    if (gone.length) await client.unsubscribeAsync(gone);
    if (added.length) await client.subscribeAsync(added, { qos: 1 });
    this.subscribed = wanted;
  }

  /** Publishes a retained message at QoS 1; resolves once the broker has it. */
  private async publish(topic: string, payload: string): Promise<void> {
    await this.client!.publishAsync(topic, payload, { qos: 1, retain: true });
  }

  /** Publishes the states (by topic name below `base`) that changed since they were last sent. */
  private async publishStates(base: string, states: Record<string, string>): Promise<void> {
    for (const [name, payload] of Object.entries(states)) {
      const topic = `${base}/${name}`;
      if (this.states.get(topic) === payload) continue;
      await this.publish(topic, payload);
      this.states.set(topic, payload);
    }
  }

  /** One message: a reading for every in-link whose topic it matches, buffered before it is acknowledged. */
  private async receive(packet: IPublishPacket): Promise<void> {
    const id = packet.qos > 0 ? packet.messageId : undefined;
    if (id !== undefined && packet.dup && this.recentIds.includes(id)) return;
    await this.read(packet);
    // Only once buffered: a delivery cut off before that must count when it comes again.
    if (id !== undefined) {
      this.recentIds.push(id);
      if (this.recentIds.length > 1000) this.recentIds.shift();
    }
  }

  private async read(packet: IPublishPacket): Promise<void> {
    const payload = packet.payload.toString();
    const nowMs = this.clock.now();
    for (const entry of this.inLinks.values()) {
      if (!topicMatches(entry.link.topic, packet.topic)) continue;
      entry.tally.messages++;
      entry.tally.lastMessageAt = nowMs;
      const read = readPayload(payload, entry.link.valuePath, entry.link.timePath);
      if ('problem' in read) {
        entry.tally.malformed++;
        entry.tally.lastMalformedAt = nowMs;
        entry.tally.lastProblem = `${packet.topic}: ${read.problem}`;
        continue;
      }
      const sign = entry.link.inverted ? -1 : 1;
      const value = entry.convert.scale * (read.value * entry.link.scale * sign) + entry.convert.offset;
      entry.tally.lastValue = value;
      const reading = { timeMs: read.timeMs ?? nowMs, value };
      if (entry.closedUntilMs !== null && reading.timeMs < entry.closedUntilMs) {
        entry.tally.late++;
        entry.tally.lastProblem = `${packet.topic}: a reading for ${new Date(reading.timeMs).toISOString()} came after its interval closed`;
        continue;
      }
      if (await this.buffer(entry.link.id, reading)) insertSorted(entry.readings, reading);
    }
  }

  /** Buffers a reading, trying again while the store refuses (it is not acknowledged before). */
  private async buffer(linkId: number, reading: Reading): Promise<boolean> {
    for (;;) {
      try {
        return await bufferReading(this.db, linkId, reading);
      } catch (err) {
        if (this.closing) throw err;
        this.log.warn({ err, linkId }, 'buffering an MQTT reading failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  protected async work(nowMs: number): Promise<number> {
    const stored = await this.closeAll(nowMs);
    for (const entry of this.inLinks.values()) await this.flushTally(entry);
    const sent = await this.sendSetpoints(nowMs);
    await this.countMoney(nowMs);
    if (this.configsDirty && this.client?.connected) await this.publishConfigs();
    return stored + sent;
  }

  /** Publishes the discovery configs of new links and empties those of removed ones (HA then drops the entities). */
  private async publishConfigs(): Promise<void> {
    this.configsDirty = false;
    for (const [id, topics] of this.publishedConfigs) {
      if (this.wantedConfigs.has(id)) continue;
      for (const topic of topics) await this.publish(topic, '');
      this.publishedConfigs.delete(id);
    }
    for (const [id, configs] of this.wantedConfigs) {
      for (const c of configs) await this.publish(c.topic, JSON.stringify(c.config));
      this.publishedConfigs.set(
        id,
        configs.map((c) => c.topic),
      );
    }
  }

  /** Sends each out-link its setpoint when its step, plan or status changed; unsent ones go at the next tick. */
  private async sendSetpoints(nowMs: number): Promise<number> {
    if (!this.client?.connected) return 0;
    let sent = 0;
    for (const link of this.outLinks) {
      const last = this.sent.get(link.id);
      const setpoint = last && nowMs < last.nextLookMs ? undefined : await currentSetpoint(this.db, link, nowMs);
      if (!setpoint) continue;
      const nextLookMs = Math.min(nowMs + PLAN_LOOK_MS, setpoint.nextStepMs);
      this.sent.set(link.id, { key: last?.key ?? '', nextLookMs });
      await this.publishStates(linkBase(link), await planStates(this.db, link.sensorId, setpoint, nowMs));
      if (setpoint.key === last?.key) continue;
      await sendSetpoint(this.db, link, setpoint, nowMs, (topic, payload) => this.publish(topic, payload));
      // A new plan, step or status: the site's money today is counted again at once.
      const site = this.siteOf.get(link.id);
      if (site) site.nextLookMs = 0;
      this.sent.set(link.id, { key: setpoint.key, nextLookMs });
      sent++;
    }
    return sent;
  }

  /** Publishes each site's money today for Home Assistant, now and then; a new currency changes the entities' unit. */
  private async countMoney(nowMs: number): Promise<void> {
    if (!this.client?.connected) return;
    for (const entry of this.sites.values()) {
      if (nowMs < entry.nextLookMs) continue;
      entry.nextLookMs = nowMs + MONEY_LOOK_MS;
      const { currency, states } = await moneyStates(this.db, entry.site.id, entry.zone, nowMs);
      if (currency !== entry.currency) {
        entry.currency = currency;
        this.wantedConfigs.set(`site-${entry.site.id}`, siteConfigs(entry.site, currency));
        this.configsDirty = true;
      }
      await this.publishStates(siteBase(entry.site.id), states);
    }
  }

  private async flushTally(entry: InLink): Promise<void> {
    const t = entry.tally;
    if (!t.messages && !t.malformed && !t.late) return;
    entry.tally = emptyTally();
    await recordTally(this.db, entry.link.id, t);
    // Home Assistant shows the latest reading; a broker away now gets the next one.
    // Not awaited: the tick that closes intervals does not wait on a display value's round trip.
    if (t.lastValue !== undefined && this.client?.connected)
      this.publish(valueTopic(entry.link), String(t.lastValue)).catch((err: unknown) =>
        this.log.warn({ err }, 'publishing a reading for Home Assistant failed'),
      );
  }

  /** Stores the means of the intervals that closed by `nowMs`; a store that fails keeps them for the next tick. */
  /**
   * Closes the intervals of every in-link that ended by `nowMs`. The links' means are stored side
   * by side, so that the store's group commit writes the many that close at one boundary in few
   * transactions; their buffers are then closed in one.
   * @returns how many means were stored.
   */
  private async closeAll(nowMs: number): Promise<number> {
    const entries = [...this.inLinks.values()];
    const closing = await Promise.all(entries.map((entry) => this.closeIntervals(entry, nowMs)));
    const closes = closing.flatMap((c, i) => (c ? [{ entry: entries[i], ...c }] : []));
    if (!closes.length) return 0;
    await closeReadings(this.db, closes);
    for (const c of closes) {
      c.entry.closedUntilMs = c.untilMs;
      c.entry.readings = c.entry.readings.filter((r) => r.timeMs >= c.keepFromMs);
    }
    return closes.reduce((sum, c) => sum + c.stored, 0);
  }

  /**
   * Stores the means of a link's intervals that closed by `nowMs`.
   * @returns where its buffer closes and how many means were stored; nothing when no interval
   *   closed, or the store failed (they are tried again at the next tick).
   */
  private async closeIntervals(entry: InLink, nowMs: number): Promise<(ReadingsClose & { stored: number }) | undefined> {
    const res = entry.resolutionMs;
    const endMs = Math.floor(nowMs / res) * res;
    if (!entry.readings.length) return undefined;
    const fromMs = entry.closedUntilMs ?? Math.floor(entry.readings[0].timeMs / res) * res;
    if (endMs <= fromMs) return undefined;
    const means = intervalMeans(entry.readings, fromMs, endMs, res, res);
    const problem = means.length ? await this.storeMeans(entry, means) : undefined;
    if (problem === 'retry') return undefined;
    if (problem) entry.tally.lastProblem = problem;
    const carry = entry.readings.filter((r) => r.timeMs < endMs).at(-1);
    return { linkId: entry.link.id, untilMs: endMs, keepFromMs: carry?.timeMs ?? endMs, stored: problem ? 0 : means.length };
  }

  /**
   * Stores means as the device's beliefs, each known when its interval closed (so that storing
   * it again after a restart changes nothing).
   * @returns why they were not stored: 'retry' for a store that failed, a sentence for a refusal.
   */
  private async storeMeans(entry: InLink, means: Reading[]): Promise<string | undefined> {
    const { link, resolutionMs } = entry;
    const owner = link.ownerId === null ? undefined : await getUser(this.db, link.ownerId);
    if (!owner?.active) return "the link's maker is no longer an active user; readings were not stored";
    const principal = { kind: 'device' as const, linkId: link.id, linkName: link.name, owner };
    const events = means.map((m) => ({ eventStartMs: m.timeMs, beliefTimeMs: m.timeMs + resolutionMs, value: m.value }));
    try {
      await storeSensorData(this.data, principal, { uploads: [{ sensorId: link.sensorId, eventResolutionMs: resolutionMs, events }] });
      return undefined;
    } catch (err) {
      if (isDomainError(err)) return `readings were not stored: ${err.message}`;
      this.log.warn({ err, linkId: link.id }, 'storing MQTT means failed; trying again');
      return 'retry';
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.stop();
    for (const entry of this.inLinks.values()) await this.flushTally(entry);
    await this.client?.endAsync();
    await this.broker?.close();
  }
}

function insertSorted(readings: Reading[], r: Reading): void {
  let i = readings.length;
  while (i > 0 && readings[i - 1].timeMs > r.timeMs) i--;
  readings.splice(i, 0, r);
}
