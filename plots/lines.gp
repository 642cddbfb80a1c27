# One metric against n, a line per implementation (throughput and bandwidth charts).
# plot.c sets: datafile, outfile, title, note (second title line, may be ""), ylabel,
#   ncols (columns in datafile: n, best_box, then one per series),
#   boxcol (column of "tb (best box)", 0 if none: its points are labelled with their NTxVT),
#   nmin, nmax (smallest and largest n).
set terminal pngcairo enhanced size 1000,650 font "sans,11"
set output outfile
set datafile separator "\t"
set datafile missing "-"
set key autotitle columnheader
# Names such as scan_exclusive must not turn into subscripts.
set title (note eq "" ? title : title."\n".note) noenhanced
set key outside below horizontal noenhanced
set logscale x 2
set format x "2^{%L}"
set mxtics 2
# A single size would give an empty x range.
if (nmin == nmax) set xrange [nmin / 2.0 : nmax * 2.0]
set xlabel "n (items, log_2 scale)"
set ylabel ylabel noenhanced
set grid xtics ytics
set yrange [0:*]
# Room for the box labels above the highest points and at both ends of the axis.
set offsets graph 0.03, graph 0.03, graph 0.08, 0
labels = boxcol > 0 ? sprintf(", datafile using 1:%d:2 with labels offset 0,1 font ',9' noenhanced notitle", boxcol) : ""
plot for [c=3:ncols] datafile using 1:c with linespoints lw 2 pt 7 ps 0.8 title columnheader(c) @labels
