% case3_congested with a load pocket hanging from bus 2 (which has no load,
% hence no backstops): bus 4 by a branch limited to 20 MW, and bus 5 behind
% bus 4 by a branch limited to 20 MW, with loads of up to 10 and 5 MW. Each
% of the two branches is a bridge whose limit, into or out of its side, can
% be reached only with a backstop on that side (the cuts of bridgeCuts).
function mpc = case4_leaf
mpc.version = '2';
mpc.baseMVA = 100;
mpc.bus = [
	1	3	0	0	0	0	1	1	0	230	1	1.1	0.9;
	2	1	0	0	0	0	1	1	0	230	1	1.1	0.9;
	3	1	90	0	0	0	1	1	0	230	1	1.1	0.9;
	4	1	8	0	0	0	1	1	0	230	1	1.1	0.9;
	5	1	4	0	0	0	1	1	0	230	1	1.1	0.9;
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
	4	5	0	0.1	0	20	0	0	0	0	1	-360	360;
];
