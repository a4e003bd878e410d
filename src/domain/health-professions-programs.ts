/**
 * The health professions programs of rules.md §2.1 (FSA Handbook 2025-26 vol. 8 ch. 4: table 3A, then 3B), as the
 * request names them. Their amounts are in health-professions.ts; this list stands alone so that the input types
 * (types.ts) can name it without importing the limit tables.
 */
export const HEALTH_PROFESSIONS_PROGRAMS = [
  'medicine',
  'osteopathic_medicine',
  'dentistry',
  'veterinary_medicine',
  'optometry',
  'podiatric_medicine',
  'naturopathic_medicine',
  'public_health',
  'chiropractic',
  'clinical_psychology',
  'health_administration',
] as const;

export type HealthProfessionsProgram = (typeof HEALTH_PROFESSIONS_PROGRAMS)[number];
