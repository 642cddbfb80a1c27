# G items/s of each swept NT x VT launch box at one n.
# plot.c sets: datafile (columns vt_index, nt_index, vt, nt, gips), outfile, title, note,
#   best_x, best_y (grid cell of the fastest box), def_x, def_y (the tuned default's; -1: none).
set terminal pngcairo enhanced size 800,640 font "sans,11"
set output outfile
set datafile separator "\t"
set title (note eq "" ? title : title."\n".note) noenhanced
set xlabel "VT (items per thread)"
set ylabel "NT (threads per CTA)"
set cblabel "throughput of the box (G items/s)"
set palette defined (0 "#ffffcc", 0.5 "#41b6c4", 1 "#225ea8")
# Boxes that were not run (pruned) show as grey.
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#e6e6e6" fillstyle solid 1.0 noborder
# The fastest box framed in red, the tuned default in black (dashed).
if (best_x >= 0) set object 2 rectangle from best_x - 0.46, best_y - 0.46 to best_x + 0.46, best_y + 0.46 front fillstyle empty border lc rgb "#d62728" lw 3
if (def_x >= 0) set object 3 rectangle from def_x - 0.40, def_y - 0.40 to def_x + 0.40, def_y + 0.40 front fillstyle empty border lc rgb "#000000" lw 2 dashtype 2
set autoscale xfix
set autoscale yfix
set tics scale 0
# The frames and the grey cells in a key below (objects have no key entries of their own).
set key outside below horizontal noenhanced
plot datafile using 1:2:(0.5):(0.5):5:xtic(3):ytic(4) with boxxyerror fillstyle solid 1.0 noborder fillcolor palette notitle, \
     "" using 1:2:(sprintf("%.1f", $5)) with labels notitle, \
     NaN with lines lc rgb "#d62728" lw 3 title "fastest box", \
     NaN with lines lc rgb "#000000" lw 2 dashtype 2 title "tuned default", \
     NaN with boxes fillstyle solid 1.0 fillcolor rgb "#e6e6e6" title "not run (pruned)"
