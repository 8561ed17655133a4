import { weekAtTheSite } from './week.ts';

// A week at the simulated site with the plans made every minute.
weekAtTheSite('*');
