import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/** The bars' colour: the dashboard's accent (`--accent` in base.css; a canvas reads no CSS). */
export const BAR_COLOUR = '#1f5fbf';
const INK = '#56606c';
const GRID = '#e4e7eb';
const HEIGHT = 200;
/** About what one character of an axis label takes on the canvas (uPlot's 12 px system font). */
const LABEL_CHAR_PX = 7;
/** The value axis's steps when figures are counts: never half a booking. */
const WHOLE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000];

export interface Column {
  heading: string;
  /** The figure of each row, formatted in the dashboard's language. */
  cells: string[];
}

interface BarChartProps {
  /** The chart's name, its caption and its table's. */
  caption: string;
  /** The category of each bar, also the first column of the table. */
  labels: string[];
  labelHeading: string;
  /** The bars' heights. */
  values: number[];
  /** How the value axis writes a figure. */
  formatValue: (value: number) => string;
  /** The figures are counts: the value axis steps by whole numbers. */
  whole?: boolean;
  /** The table's figures: the charted one and any other of the same rows. */
  columns: Column[];
  showTable: boolean;
}

/**
 * A bar chart (uPlot on a canvas) with its text alternative: the caption and a table of the same
 * figures, visually hidden unless asked for, so a screen reader and a person reading numbers get
 * all the chart says.
 */
export function BarChart({
  caption,
  labels,
  labelHeading,
  values,
  formatValue,
  whole = false,
  columns,
  showTable,
}: BarChartProps) {
  const holder = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = holder.current!;
    const top = Math.max(1, ...values) * 1.1;
    const plot = new uPlot(
      {
        width: element.clientWidth,
        height: HEIGHT,
        legend: { show: false },
        cursor: { show: false },
        scales: {
          x: { time: false, range: () => [-0.5, labels.length - 0.5] },
          y: { range: () => [0, top] },
        },
        axes: [
          {
            stroke: INK,
            grid: { show: false },
            ticks: { show: false },
            incrs: [1, 2, 3, 4, 6, 7, 14, 30, 61],
            // Labels skip bars rather than overlap: "12:00 PM" needs more room than "12:00".
            space: Math.max(44, LABEL_CHAR_PX * Math.max(0, ...labels.map((label) => label.length)) + 12),
            size: 32,
            values: (_, splits) => splits.map((split) => labels[split] ?? ''),
          },
          {
            stroke: INK,
            grid: { stroke: GRID },
            ticks: { show: false },
            size: 56,
            ...(whole ? { incrs: WHOLE_STEPS } : {}),
            values: (_, splits) => splits.map(formatValue),
          },
        ],
        series: [
          {},
          {
            fill: BAR_COLOUR,
            stroke: BAR_COLOUR,
            paths: uPlot.paths.bars!({ size: [0.7, 48] }),
            points: { show: false },
          },
        ],
      },
      [labels.map((_, index) => index), values],
      element,
    );
    const resized = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: HEIGHT }));
    resized.observe(element);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [labels.join('|'), values.join('|'), formatValue, whole]);

  return (
    <figure class="chart">
      <figcaption>{caption}</figcaption>
      <div class="chart-canvas" ref={holder} aria-hidden="true" />
      {/* A table keeps its content's size whatever its own: the wrapper is what is hidden. */}
      <div class={showTable ? undefined : 'sr-only'}>
        <table class="chart-table">
          <caption class="sr-only">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">{labelHeading}</th>
              {columns.map((column) => (
                <th key={column.heading} scope="col">
                  {column.heading}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, row) => (
              <tr key={`${row}-${label}`}>
                <th scope="row">{label}</th>
                {columns.map((column) => (
                  <td key={column.heading}>{column.cells[row]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
