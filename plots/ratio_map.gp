# tb over its best baseline at every n (columns) and algorithm / average length (rows).
# plot_ratio.c sets: datafile (columns x, y, n, row, ratio, tie, text, best baseline), outfile,
#   title, note1..note3 (the caption: the decision, the losses, the winners), nx, ny (columns,
#   rows),
#   seps (y positions of the lines between algorithms, space-separated), winner_line (1: print
#   each cell's best baseline under its value, several won).
set terminal pngcairo enhanced size (nx * 80 + 560 > 1000 ? nx * 80 + 560 : 1000), \
    (ny * (winner_line ? 34 : 24) + 250) font "sans,10"
set output outfile
set datafile separator "\t"
set title title."\n".note1."\n".note2."\n".note3 noenhanced font ",10"
set xlabel "n (items)"
set tics scale 0
set xtics noenhanced
set ytics noenhanced
set xrange [-0.5 : nx - 0.5]
set yrange [-0.5 : ny - 0.5]
# Diverging around 1 on a log scale, so that 0.8 and 1.25 weigh the same; clamped at 0.5 and 2
# (the printed value says how far beyond). Steep near 1: a 5% loss is already visibly red.
set logscale cb 2
set cbrange [0.5 : 2]
set cbtics ("0.5" 0.5, "0.67" 0.6667, "0.8" 0.8, "0.9" 0.9, "1" 1, "1.1" 1.1111, "1.25" 1.25, \
            "1.5" 1.5, ">= 2" 2)
set cblabel "tb / best baseline (median G items/s; < 1 red: tb slower, > 1 blue: tb faster)"
set palette defined (0 "#b2182b", 0.3 "#e07b68", 0.47 "#f6c3ad", 0.5 "#f7f7f7", \
                     0.53 "#bcd8ea", 0.7 "#6aa6d0", 1 "#2166ac")
set rmargin 24
set colorbox vertical user origin graph 1.03, graph 0 size graph 0.04, graph 1
# Cells without a ratio (no tb row or no baseline there) stay grey.
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#e0e0e0" fillstyle solid 1.0 noborder
do for [s in seps] {
  set arrow from graph 0, first (s + 0 - 0.5) to graph 1, first (s + 0 - 0.5) nohead front lw 2 lc rgb "#222222"
}
set key outside below horizontal noenhanced
dy = winner_line ? 0.14 : 0
plot datafile using 1:2:(0.5):(0.5):5:xtic(3):ytic(4) with boxxyerror fillstyle solid 1.0 noborder fillcolor palette notitle, \
     "" using ($6 > 0 ? $1 : NaN):2:(0.5):(0.5) with boxxyerror fillstyle pattern 4 transparent noborder lc rgb "#555555" \
        title "tie: |ratio - 1| within the combined cv of the repetitions", \
     "" using 1:($2 + dy):7 with labels font ",10" noenhanced notitle, \
     "" using 1:($2 - 0.22):(winner_line ? stringcolumn(8) : "") with labels font ",7" tc rgb "#333333" noenhanced notitle
