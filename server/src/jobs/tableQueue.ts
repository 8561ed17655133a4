import type { EnqueueOptions, JobListFilter, JobQueue, JobRecord, JobTypes } from './jobQueue.ts';
import { JobTable, type QueueSetup } from './jobTable.ts';

/**
 * What the in-process and the BullMQ queue share: job records live in the store's `job` table,
 * so recording, reading and listing them does not depend on where jobs run.
 */
export abstract class TableQueue<M extends JobTypes> implements Pick<JobQueue<M>, 'record' | 'get' | 'list'> {
  protected readonly table: JobTable<M>;

  constructor(protected readonly setup: QueueSetup<M>) {
    const { db, config, isQueue, clock } = setup;
    this.table = new JobTable(db, config, isQueue, clock);
  }

  record<Q extends keyof M & string>(queue: Q, args: M[Q]['args'], result: M[Q]['result'], options: EnqueueOptions) {
    return this.table.record(queue, args, result, options);
  }

  get(id: string): Promise<JobRecord<M> | undefined> {
    return this.table.get(id);
  }

  list(filter: JobListFilter<M>): Promise<JobRecord<M>[]> {
    return this.table.list(filter);
  }
}
