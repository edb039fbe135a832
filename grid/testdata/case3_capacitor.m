% case3_congested with every branch limited (500 MW on the unlimited ones)
% and a series-compensated branch 1-2 in parallel (x = -0.3 p.u.: negative
% susceptance; the pair's net susceptance stays positive).
function mpc = case3_capacitor
mpc.version = '2';
mpc.baseMVA = 100;
mpc.bus = [
	1	3	0	0	0	0	1	1	0	230	1	1.1	0.9;
	2	1	0	0	0	0	1	1	0	230	1	1.1	0.9;
	3	1	90	0	0	0	1	1	0	230	1	1.1	0.9;
];
mpc.gen = [
	1	0	0	100	-100	1	100	1	200	0;
	3	0	0	100	-100	1	100	1	100	0;
];
mpc.gencost = [
	2	0	0	3	0	10	0;
	2	0	0	2	50	0;
];
mpc.branch = [
	1	2	0	0.1	0	500	0	0	0	0	1	-360	360;
	1	3	0	0.1	0	50	0	0	0	0	1	-360	360;
	2	3	0	0.1	0	500	0	0	0	0	1	-360	360;
	1	2	0	-0.3	0	500	0	0	0	0	1	-360	360;
];
