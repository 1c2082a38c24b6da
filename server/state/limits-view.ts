// What one read works out about the global limits (state/limits.ts), as a type the snapshot can hold.

export interface LimitsView {
  /** Whether a limit holds the flow back from this user now: `$state.visible` false, as a collection's cool-off does. Undefined when no rule holds. */
  holds: ((slug: string) => boolean) | undefined;
  /** When each rule lets its flows through again (epoch milliseconds), by its place in the file; -Infinity for a rule that holds nothing now. */
  until: readonly number[];
}
