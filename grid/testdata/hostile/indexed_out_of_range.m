% Two generators on bus 1 serve 100 MW at bus 2 through an unlimited line.
% Nominal DC-OPF: p1 = 80 (10 $/MWh, full), p2 = 20 (30 $/MWh): cost 1400 $/h.
% Private cost query with noise support [-A, A]: the recourse is X1 = -1/20,
% X2 = 1/20 (c'X = 1, 1'X = 0), gen 1 must stay below 80 at zeta = -A, so
% p1 = 80 - A/20 and the expected cost is 1400 + A.
function mpc = case2_merit
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
mpc.gen(9, 9) = 0;
