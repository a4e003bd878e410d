/**
 * The school-policy options (src/domain/policy.ts, through service-tables.js) in the aid office's words: a title per
 * option and a name per value, for the policy section, the result's policy line and the warning that names the
 * policy. The options and their values come from the service's table; this only says how each reads. An option or
 * value the page does not know yet reads as its own words (underscores as spaces); test/web/words.test.ts holds
 * this table to the service's, so a new option without words fails there.
 */
export interface OptionWords {
  title: string;
  values: Readonly<Record<string, string>>;
}

export const POLICY_WORDS: Readonly<Record<string, OptionWords>> = {
  proration_fraction: {
    title: 'Final-period fraction',
    values: {
      exact: 'Exact fraction',
      decimal_rounded: '2 decimals, rounded',
      decimal_truncated: '2 decimals, truncated',
    },
  },
  remainder_placement: {
    title: 'Leftover dollars of a split',
    values: { largest_remainder: 'Largest remainders', last_term: 'All on the last term' },
  },
  single_term_basis: {
    title: 'One-term loan period',
    values: { full_annual: 'Full annual amount', half_annual: 'Half the annual amount' },
  },
  below_half_time_credits: {
    title: 'Credits of terms below half time',
    values: { counted: 'Counted in the year', excluded: 'Left out of the year' },
  },
  grad_plus_gap: {
    title: 'Grad PLUS base',
    values: { after_reduction: 'After the reduction', before_reduction: 'Before the reduction' },
  },
};

const spaced = (token: string): string => {
  const words = token.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** `proration_fraction` → "Final-period fraction". */
export function optionTitle(option: string): string {
  return POLICY_WORDS[option]?.title ?? spaced(option);
}

/** (`proration_fraction`, `decimal_rounded`) → "2 decimals, rounded". */
export function valueWords(option: string, value: string): string {
  return POLICY_WORDS[option]?.values[value] ?? spaced(value);
}

/** `proration_fraction=decimal_rounded` → "Final-period fraction: 2 decimals, rounded". */
export function choiceWords(option: string, value: string): string {
  return `${optionTitle(option)}: ${valueWords(option, value)}`;
}

/** The option a value belongs to, for the values written as one token (`decimal_rounded` → `proration_fraction`). */
export function optionOfValue(value: string): string | undefined {
  return Object.entries(POLICY_WORDS).find(([, words]) => value in words.values)?.[0];
}
