# Throughput against the average segment length at one n, one line per implementation, and
# below, tb over the best baseline on a linear axis (1 = even).
# plot.c sets: datafile, outfile, title, ncols (columns: seg, then one per implementation),
#   colours (one per implementation, the same in every chart), ratiocol (0: no ratio panel;
#   else the columns tb / best baseline, its spread, the best baseline's name),
#   winners, nwinners (the best baselines that won, comma-separated, and how many).
set terminal pngcairo enhanced size 1000,(ratiocol > 0 ? 820 : 650) font "sans,11"
set output outfile
set datafile separator "\t"
set datafile missing "-"
set title title noenhanced
set logscale x 2
set format x "2^{%L}"
set grid xtics ytics
set offsets graph 0.03, graph 0.03, 0, 0
if (ratiocol > 0) {
  set multiplot
  set lmargin at screen 0.09
  set rmargin at screen 0.97
  set tmargin at screen 0.92
  set bmargin at screen 0.44
  set format x ""
  set key inside left top vertical noenhanced box opaque
} else {
  set key outside below horizontal noenhanced
  set xlabel "average segment length (log_2 scale)"
}
set logscale y 10
set ylabel "throughput (G items/s, log scale)"
# column(c) in an expression: an unmeasured length breaks the line instead of being bridged.
plot for [c=2:ncols] datafile using 1:(column(c)) with linespoints lw 2 pt 7 ps 0.9 \
     lc rgb word(colours, c - 1) title columnheader(c)
# The winner's name at each ratio point when several baselines won (a macro, defined out of the
# block: a block's macros are expanded before it runs).
names = nwinners > 1 ? sprintf(", datafile using 1:%d:%d with labels offset 0,-1 font ',8' noenhanced notitle", ratiocol, ratiocol + 2) : ""
if (ratiocol > 0) {
  unset title
  unset logscale y
  set autoscale y
  # Linear, unless a ratio of hundreds would flatten the ones near 1.
  stats datafile using (column(ratiocol)) nooutput
  logr = STATS_min > 0 && STATS_max / STATS_min > 4
  if (logr) { set logscale y 2 }
  set tmargin at screen 0.40
  set bmargin at screen 0.1
  set format x "2^{%L}"
  set xlabel "average segment length (log_2 scale); grey band: within the combined spread of the repetitions (a tie)"
  set ylabel (logr ? "tb / best baseline (log_2 scale)" : "tb / best baseline (linear)")
  set offsets graph 0.03, graph 0.03, graph 0.1, graph 0.1
  set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 lc rgb "#444444"
  set key outside below horizontal noenhanced nobox
  plot datafile using 1:(1 - column(ratiocol + 1) / column(ratiocol)):(1 + column(ratiocol + 1) / column(ratiocol)) \
         with filledcurves fillcolor rgb "#dddddd" notitle, \
       "" using 1:(column(ratiocol)) with linespoints lw 2 pt 7 ps 0.9 lc rgb word(colours, 1) \
         title sprintf("tb / best baseline (%s)", winners) @names
  unset multiplot
}
