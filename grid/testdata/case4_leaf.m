% case3_congested with a leaf bus 4 hanging from bus 2 (which has no load,
% hence no backstops) by a branch limited to 20 MW, carrying a load of up to
% 10 MW: the branch can reach its limit into bus 4 only with curtailment at
% bus 4, and out of it only with shedding there (the leaf cuts of leafCuts).
function mpc = case4_leaf
mpc.version = '2';
mpc.baseMVA = 100;
mpc.bus = [
	1	3	0	0	0	0	1	1	0	230	1	1.1	0.9;
	2	1	0	0	0	0	1	1	0	230	1	1.1	0.9;
	3	1	90	0	0	0	1	1	0	230	1	1.1	0.9;
	4	1	8	0	0	0	1	1	0	230	1	1.1	0.9;
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
	1	2	0	0.1	0	0	0	0	0	0	1	-360	360;
	1	3	0	0.1	0	50	0	0	0	0	1	-360	360;
	2	3	0	0.1	0	0	0	0	0	0	1	-360	360;
	2	4	0	0.1	0	20	0	0	0	0	1	-360	360;
];
