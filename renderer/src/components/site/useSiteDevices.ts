import { API, request, type RequestOptions } from '../../api/client.ts';
import type { Asset, Sensor } from '../../api/types.ts';
import { useApi } from '../../hooks/useApi.ts';
import { parseAttributes } from '../../lib/attributes.ts';
import * as wire from '../../api/contracts.ts';

/** A device of a site: its asset and its sensors. */
export interface SiteDevice {
  asset: Asset;
  sensors: Sensor[];
}

/** The assets directly below a site, each with its sensors, in the order they were made. */
async function readDevices(path: string, options: RequestOptions): Promise<SiteDevice[]> {
  const root = Number(options.query?.root);
  const below = await request(path, { ...options, answer: wire.assetList });
  const children = below.filter((a) => a.parent_asset_id === root).sort((a, b) => a.id - b.id);
  return Promise.all(
    children.map(async (asset) => ({
      asset,
      sensors: await request(`${API}/sensors`, { query: { asset_id: asset.id }, signal: options.signal, answer: wire.sensorList }),
    })),
  );
}

/** @returns the site's devices with their sensors, read again when `reload` is called. */
export const useSiteDevices = (siteId: number) => useApi(`${API}/assets`, { root: siteId, depth: 1 }, readDevices);

/** A device's stored flex-model, parsed: devices with one are scheduled with the site. */
export const storedFlexModel = (asset: Asset): Record<string, unknown> => parseAttributes(asset.flex_model);
