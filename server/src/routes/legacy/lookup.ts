import { isEnergyPriceUnit } from '../../domain/units.ts';
import type { Knex } from 'knex';
import { namedSensorOwners } from '../../policies/roles.ts';
import type { LegacyCall } from './message.ts';
import { findSensorsByName, searchName } from '../../store/sensorSearch.ts';
import { getSensor, type SensorInContext } from '../../store/sensors.ts';
import { parseConnection, parseMarket, parseWeatherSensor } from './entityAddresses.ts';
import { legacyError } from './responses.ts';

/**
 * Finding the sensors that legacy addresses name. Addresses by id name sensors directly;
 * connection names are looked up in the caller's account, markets and weather sensors also
 * among public assets (every account, for admins).
 */

/** A weather station further than this from the requested location is not the one meant. */
const WEATHER_MATCH_KM = 10;

/** Sensor types that the message API used interchangeably. */
const weatherSynonyms = [['radiation', 'irradiance', 'solar_irradiance']];

async function sensorById(db: Knex, sensorId: number, kind: string): Promise<SensorInContext> {
  const sensor = await getSensor(db, sensorId);
  if (!sensor) throw legacyError('UNRECOGNIZED_ASSET', `No ${kind} with sensor id ${sensorId} is known.`);
  return sensor;
}

/**
 * The sensor of a connection (an address or a connection name).
 * @returns the sensor; throws INVALID_DOMAIN or UNRECOGNIZED_ASSET.
 */
export async function connectionSensor({ db, user }: LegacyCall, text: string): Promise<SensorInContext> {
  const address = parseConnection(text);
  if ('error' in address) throw legacyError('INVALID_DOMAIN', address.error);
  if ('sensorId' in address) return sensorById(db, address.sensorId, 'connection');
  const [sensor] = await findSensorsByName(db, { names: [address.name], owners: [user.account_id] });
  if (!sensor) throw legacyError('UNRECOGNIZED_ASSET', `No connection named '${address.name}' is known in your account.`);
  return sensor;
}

/**
 * The price sensor of a market address.
 * @returns the sensor; throws INVALID_DOMAIN, UNRECOGNIZED_ASSET or UNRECOGNIZED_MARKET.
 */
export async function marketSensor({ db, user }: LegacyCall, text: string): Promise<SensorInContext> {
  const address = parseMarket(text);
  if ('error' in address) throw legacyError('INVALID_DOMAIN', address.error);
  if ('sensorId' in address) {
    const sensor = await sensorById(db, address.sensorId, 'market');
    if (!isEnergyPriceUnit(sensor.unit)) {
      throw legacyError('UNRECOGNIZED_MARKET', `Sensor ${sensor.id} is no market: its unit ${sensor.unit} is no price per unit of energy.`);
    }
    return sensor;
  }
  const found = await findSensorsByName(db, { names: [address.name], owners: namedSensorOwners(user) });
  const sensor = found.find((s) => isEnergyPriceUnit(s.unit));
  if (!sensor) throw legacyError('UNRECOGNIZED_MARKET', `No market named '${address.name}' is known.`);
  return sensor;
}

/** Great-circle distance in kilometres. */
function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(a)));
}

/**
 * The sensor of a weather sensor address: by id, or the sensor named after the type (or a
 * synonym) on the asset nearest to the location, within 10 km.
 * @returns the sensor; throws INVALID_DOMAIN, UNRECOGNIZED_ASSET or UNRECOGNIZED_SENSOR.
 */
export async function weatherSensor({ db, user }: LegacyCall, text: string): Promise<SensorInContext> {
  const address = parseWeatherSensor(text);
  if ('error' in address) throw legacyError('INVALID_DOMAIN', address.error);
  if ('sensorId' in address) return sensorById(db, address.sensorId, 'weather sensor');
  const { type, latitude, longitude } = address;
  const names = weatherSynonyms.find((group) => group.includes(searchName(type))) ?? [type];
  const placed = (await findSensorsByName(db, { names, owners: namedSensorOwners(user) }))
    .filter((s) => s.latitude !== null && s.longitude !== null)
    .map((s) => ({ sensor: s, km: distanceKm(latitude, longitude, s.latitude!, s.longitude!) }))
    .sort((a, b) => a.km - b.km);
  if (!placed.length) throw legacyError('UNRECOGNIZED_SENSOR', `No ${type} sensor with a known location exists.`);
  const nearest = placed[0];
  if (nearest.km > WEATHER_MATCH_KM) {
    throw legacyError(
      'UNRECOGNIZED_SENSOR',
      `No ${type} sensor is known within ${WEATHER_MATCH_KM} km of latitude ${latitude} and longitude ${longitude}; ` +
        `the nearest is at latitude ${nearest.sensor.latitude} and longitude ${nearest.sensor.longitude}.`,
    );
  }
  return nearest.sensor;
}
