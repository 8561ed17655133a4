/**
 * The physics of the simulated site's devices, independent of the server: what a battery or a
 * car actually does with a setpoint, so that the simulation's checks rest on it and not on the
 * server's own figures.
 */

export interface StorageSpec {
  capacityKwh: number;
  powerKw: number;
  /** Share of the energy drawn that ends up stored. */
  chargingEfficiency: number;
  /** Share of the energy taken out of storage that reaches the site. */
  dischargingEfficiency: number;
  /** Whether it can feed the site (a battery; a car on a one-way charger cannot). */
  canDischarge: boolean;
}

/**
 * A store of energy: its state of charge moves with the power actually drawn, which is the
 * setpoint clipped by the power limit and by what fits between empty and full.
 */
export class Storage {
  constructor(
    readonly spec: StorageSpec,
    public socKwh: number,
  ) {}

  /**
   * Follows a setpoint for a while.
   * @param setpointKw consumption positive (charging), production negative (discharging).
   * @returns the power actually drawn (kW, consumption positive).
   */
  run(setpointKw: number, hours: number): number {
    const { powerKw, capacityKwh, chargingEfficiency, dischargingEfficiency, canDischarge } = this.spec;
    const lowest = canDischarge ? -powerKw : 0;
    let kw = Math.min(powerKw, Math.max(lowest, setpointKw));
    if (kw > 0) kw = Math.min(kw, (capacityKwh - this.socKwh) / (chargingEfficiency * hours));
    else kw = Math.max(kw, (-this.socKwh * dischargingEfficiency) / hours);
    this.socKwh += kw > 0 ? kw * chargingEfficiency * hours : (kw / dischargingEfficiency) * hours;
    // Rounding must not take it past its ends.
    this.socKwh = Math.min(capacityKwh, Math.max(0, this.socKwh));
    return kw;
  }

  get socPercent(): number {
    return (this.socKwh / this.spec.capacityKwh) * 100;
  }
}
