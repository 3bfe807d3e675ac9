/** `["A", "B"]` -> `{ A: "A", B: "B" }`: a name per member, so code spells `CODE.A`, never `"A"`. */
export function named<const T extends readonly string[]>(
  members: T,
): { readonly [K in T[number]]: K } {
  return Object.freeze(Object.fromEntries(members.map((m) => [m, m]))) as {
    readonly [K in T[number]]: K;
  };
}

/** A type guard for "is this string one of the members". */
export function memberOf<const T extends readonly string[]>(
  members: T,
): (value: unknown) => value is T[number] {
  const set = new Set<unknown>(members);
  return (value: unknown): value is T[number] => set.has(value);
}
