import { weekAtTheSite } from './week.ts';

// A week at the simulated site with the plans made every quarter hour.
weekAtTheSite('*/15');
