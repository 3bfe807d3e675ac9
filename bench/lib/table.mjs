// One printed table per case: both sides, the ratio, and whether the target holds.
const fmt = (value, unit) => {
  if (!Number.isFinite(value)) return "n/a";
  if (unit === "ms" || unit === "s") return value >= 100 ? value.toFixed(0) : value.toFixed(2);
  if (unit === "KiB" || unit === "MiB" || unit === "x") return value.toFixed(2);
  return value >= 100 ? value.toFixed(0) : value.toFixed(2);
};

export function formatRows(rows) {
  const header = [
    "measure",
    "unit",
    "wfr (median [min-max])",
    "anchor (median [min-max])",
    "ratio",
    "target",
    "met",
  ];
  const lines = rows.map((row) => [
    row.label,
    row.unit,
    `${fmt(row.ours.median, row.unit)} [${fmt(row.ours.min, row.unit)}-${fmt(row.ours.max, row.unit)}]`,
    row.anchor
      ? `${fmt(row.anchor.median, row.unit)} [${fmt(row.anchor.min, row.unit)}-${fmt(row.anchor.max, row.unit)}]`
      : "",
    Number.isFinite(row.ratio) ? `${row.ratio.toFixed(2)}x` : "",
    row.target ?? "",
    row.met === undefined ? "" : row.met ? "yes" : "NO",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const render = (cells) =>
    cells
      .map((c, i) => String(c).padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [render(header), render(widths.map((w) => "-".repeat(w))), ...lines.map(render)].join(
    "\n",
  );
}
