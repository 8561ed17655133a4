/**
 * What a statement costs through knex and through `Dialect.query`, which skips knex's builder
 * (on SQLite both run on statements kept compiled on the connection, db/sqlite/statements.ts),
 * in-process on a fresh store: wall time and CPU time (all threads of the process, the thread
 * pool's included) per statement. CPU time is the figure that holds on a shared machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { dataFolder } from '../server/src/dataFolder.ts';
import { migrate, openStore } from '../server/src/db/connection.ts';
import { dialectOf } from '../server/src/db/dialect.ts';

const RUNS = 3000;
const ROWS = 96;

async function measure(name: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < RUNS / 10; i++) await fn();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < RUNS; i++) await fn();
  const wallUs = ((performance.now() - started) * 1000) / RUNS;
  const used = process.cpuUsage(cpu);
  console.log(`| ${name} | ${wallUs.toFixed(0)} µs | ${((used.user + used.system) / RUNS).toFixed(0)} µs |`);
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-bench-'));
  const db: Knex = openStore(dataFolder(dir).store);
  try {
    await migrate(db);
    const { query } = dialectOf(db);
    console.log('| statement | wall | CPU |\n|---|---|---|');
    const epoch = 'SELECT epoch FROM auth_epoch WHERE id = 1';
    await measure('auth epoch, knex builder', () => db('auth_epoch').where({ id: 1 }).first('epoch'));
    await measure('auth epoch, kept', () => query(db, epoch, []));
    await db.raw('CREATE TABLE scratch (a INTEGER, b INTEGER, c REAL)');
    const insert = `INSERT INTO scratch (a, b, c) VALUES ${new Array<string>(ROWS).fill('(?, ?, ?)').join(', ')}`;
    const values = Array.from({ length: ROWS * 3 }, (_, i) => i);
    await measure(`${ROWS}-row insert, knex raw`, () => db.raw(insert, values));
    await measure(`${ROWS}-row insert, kept`, () => query(db, insert, values));
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
