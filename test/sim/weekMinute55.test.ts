import { weekAtTheSite } from './week.ts';

// A week at the simulated site with the plans made at minute 55 of each hour.
weekAtTheSite('55');
