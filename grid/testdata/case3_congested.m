% Three-bus loop with congestion, solved by hand.
% Cheap generator at bus 1 (10 $/MWh), expensive at bus 3 (50 $/MWh), 90 MW load
% at bus 3, branch 1-3 limited to 50 MW. PTDF of branch 1-3: 2/3 for an injection
% at bus 1, so p1 = 75, p3 = 15, cost 1500 $/h; LMPs 10, 30, 50 $/MWh.
function mpc = case3_congested
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
	1	2	0	0.1	0	0	0	0	0	0	1	-360	360;
	1	3	0	0.1	0	50	0	0	0	0	1	-360	360;
	2	3	0	0.1	0	0	0	0	0	0	1	-360	360;
];
