# One metric against n, a line per implementation (throughput and bandwidth charts), and for
# throughput a ratio panel below: tb over the best baseline, linear, so that 5-30% show.
# plot.c sets: datafile, outfile, title, note (second title line, may be ""), ylabel,
#   ncols (columns in datafile up to the last series: n, best_box, one per series; a spread
#   column per series follows, in the same order),
#   boxcol (column of "tb (best box)", 0 if none: its points are labelled with their NTxVT),
#   ratiocol (0: no ratio panel; else the columns tb (tuned default) / best baseline,
#   tb (best box) / best baseline, the first ratio's spread, the best baseline's name),
#   winners, nwinners (the best baselines that won, comma-separated, and how many),
#   nmin, nmax (smallest and largest n), colours (one per series, in column order),
#   logy (1: log y axis, the values span decades), hundred (1: a bandwidth chart, draw 100%),
#   l2n (largest n whose input stayed in L2, 0 if none: marked, those points measure a warm cache).
set terminal pngcairo enhanced size 1000,(ratiocol > 0 ? 860 : 650) font "sans,11"
set output outfile
set datafile separator "\t"
set datafile missing "-"
set key outside below horizontal noenhanced
set logscale x 2
set format x "2^{%L}"
set mxtics 2
# A single size would give an empty x range.
if (nmin == nmax) set xrange [nmin / 2.0 : nmax * 2.0]
set grid xtics ytics
nseries = ncols - 2
labels = boxcol > 0 ? sprintf(", datafile using 1:%d:2 with labels offset 0,1 font ',9' noenhanced notitle", boxcol) : ""
if (ratiocol > 0) {
  set multiplot
  set lmargin at screen 0.09
  set rmargin at screen 0.97
  set tmargin at screen 0.91
  set bmargin at screen 0.42
  set format x ""
  set xlabel ""
} else {
  set xlabel "n (items, log_2 scale); error bars: +-1 standard deviation of the repetitions"
}
# Names such as scan_exclusive must not turn into subscripts.
set title (note eq "" ? title : title."\n".note) noenhanced
set ylabel ylabel noenhanced
if (logy) { set logscale y 10 } else { set yrange [0:*] }
if (hundred) set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead dashtype 2 lc rgb "#444444"
if (l2n > 0) set arrow 2 from first l2n * 1.41, graph 0 to first l2n * 1.41, graph 1 nohead dashtype 3 lc rgb "#888888"
# (At the bottom when the key takes the top left, above a ratio panel.)
if (l2n > 0) set label 1 "fits L2 (warm cache) <" at first l2n * 1.41, graph (ratiocol > 0 ? 0.03 : 0.97) right font ",9" tc rgb "#666666"
# Room for the box labels above the highest points and at both ends of the axis.
set offsets graph 0.03, graph 0.03, graph 0.08, 0
if (ratiocol > 0) set key inside left top vertical noenhanced box opaque
# column(c) inside an expression: an unmeasured size breaks the line instead of being bridged.
plot for [c=3:2+nseries] datafile using 1:(column(c)):(column(c + nseries)) \
     with yerrorlines lw 2 pt 7 ps 0.8 lc rgb word(colours, c - 2) title columnheader(c) @labels
# Macros of the ratio panel, defined out of its block (a block's macros are expanded before it
# runs): the best box's ratio where boxes were swept, the winner's name at each point when
# several baselines won.
boxratio = boxcol > 0 ? sprintf(", datafile using 1:(column(%d)) with linespoints lw 1 dt 2 pt 6 ps 0.7 lc rgb '#6baed6' title 'tb (best box) / best baseline'", ratiocol + 1) : ""
names = nwinners > 1 ? sprintf(", datafile using 1:%d:%d with labels offset 0,-1 font ',8' noenhanced notitle", ratiocol, ratiocol + 3) : ""
if (ratiocol > 0) {
  unset title
  unset arrow 1
  unset label 1
  unset logscale y
  set autoscale y
  # Linear, unless a ratio of hundreds would flatten the ones near 1.
  stats datafile using (column(ratiocol)) nooutput
  logr = STATS_min > 0 && STATS_max / STATS_min > 4
  if (logr) { set logscale y 2 }
  set tmargin at screen 0.38
  set bmargin at screen 0.09
  set format x "2^{%L}"
  set xlabel "n (items, log_2 scale); grey band: ratios within the combined spread of the repetitions (a tie)"
  set ylabel (logr ? "tb / best baseline (log_2 scale)" : "tb / best baseline (linear)")
  set offsets graph 0.03, graph 0.03, graph 0.1, graph 0.1
  set arrow 3 from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 lc rgb "#444444"
  set key outside below horizontal noenhanced nobox
  plot datafile using 1:(1 - column(ratiocol + 2) / column(ratiocol)):(1 + column(ratiocol + 2) / column(ratiocol)) \
         with filledcurves fillcolor rgb "#dddddd" notitle, \
       "" using 1:(column(ratiocol)) with linespoints lw 2 pt 7 ps 0.8 lc rgb word(colours, 1) \
         title sprintf("tb (tuned default) / best baseline (%s)", winners) @boxratio @names
  unset multiplot
}
