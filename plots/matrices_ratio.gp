# tb over its best baseline per real matrix (spmv_mtx rows), one group of two bars per matrix:
# the plain product against the better cuSPARSE algorithm, the _apply form against the better
# preprocessed one. Linear: the matrices sit within a few times of the library, and 1 is the line
# that matters.
# plot_matrices.c sets: datafile (columns matrix, nnz, plain ratio, +-, apply ratio, +-, best
#   baseline, best baseline (apply)), outfile, title, note, colours (plain, apply), nmatrices,
#   ymax.
set terminal pngcairo enhanced size (nmatrices * 70 + 300 > 1000 ? nmatrices * 70 + 300 : 1000), 700 \
    font "sans,11"
set output outfile
set datafile separator "\t"
set datafile missing "-"
# The heading line is no data row: $0 then counts the matrices from 0, as the bars do.
set key autotitle columnheader
set title title."\n".note noenhanced font ",10"
set key outside below horizontal noenhanced
set ylabel "tb / best baseline (ratio of medians; > 1: tb faster)"
set xlabel "matrix (sorted by nonzeros)"
set xtics rotate by 35 right nomirror noenhanced scale 0
set yrange [0 : ymax]
set xrange [-0.6 : nmatrices - 0.4]
set grid ytics
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.9 border -1
set boxwidth 0.9
# Parity: above the line tb is faster than the library.
set arrow from graph 0, first 1 to graph 1, first 1 nohead front dt 2 lw 2 lc rgb "#222222"
set label "1.0" at graph 1, first 1 offset 0.5, 0 left font ",9"
# Two bars in a group of gap 1: centres at -1/6 and +1/6 of the group's position; each value
# printed above its error bar.
plot datafile using 3:4:xtic(1) title columnheader(3) lc rgb word(colours, 1), \
     "" using 5:6 title columnheader(5) lc rgb word(colours, 2), \
     "" using ($0 - 1.0 / 6):($3 + $4):(sprintf("%.2f", $3)) with labels rotate by 90 left \
        offset 0, 0.3 font ",7" notitle, \
     "" using ($0 + 1.0 / 6):($5 + $6):(sprintf("%.2f", $5)) with labels rotate by 90 left \
        offset 0, 0.3 font ",7" notitle
