/** A source a value rests on: its title as cited and a link to it (PolicyEngine's `reference`). */
export interface Reference {
  readonly title: string;
  readonly href: string;
}
