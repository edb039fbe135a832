function mpc = c
mpc = loadcase('case9');
mpc.version = '2';
mpc.baseMVA = 100;
mpc.bus = [
	1	3	0	0	0	0	1	1	0	230	1	1.1	0.9;
	2	1	100	0	0	0	1	1	0	230	1	1.1	0.9;
];
mpc.gen = [
	1	0	0	100	-100	1	100	1	80	0;
	1	0	0	100	-100	1	100	1	100	0;
];
mpc.gencost = [
	2	0	0	2	10	0;
	2	0	0	2	30	0;
];
mpc.branch = [
	1	2	0	0.1	0	0	0	0	0	0	1	-360	360;
];
