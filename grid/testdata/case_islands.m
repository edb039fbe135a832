% Two islands, each with its own generator: buses 1-2 (gen at 1, 10 $/MWh, load
% 50 MW at 2) and buses 3-4 (gens at 3, 20 $/MWh and at 4, 30 $/MWh capped at
% 25 MW, load 60 MW at 4 behind a 40 MW line). Island 2: p(3) = 40 (line
% limit), p(4) = 20. Cost 50·10 + 40·20 + 20·30 = 1900 $/h; LMPs 10, 10, 20, 30.
function mpc = case_islands
mpc.version = '2';
mpc.baseMVA = 100;
mpc.bus = [
	1	3	0	0	0	0	1	1	0	230	1	1.1	0.9;
	2	1	50	0	0	0	1	1	0	230	1	1.1	0.9;
	3	2	0	0	0	0	1	1	0	230	1	1.1	0.9;
	4	2	60	0	0	0	1	1	0	230	1	1.1	0.9;
];
mpc.gen = [
	1	0	0	100	-100	1	100	1	100	0;
	3	0	0	100	-100	1	100	1	100	0;
	4	0	0	100	-100	1	100	1	25	0;
];
mpc.gencost = [
	2	0	0	2	10	0;
	2	0	0	2	20	0;
	2	0	0	2	30	0;
];
mpc.branch = [
	1	2	0	0.1	0	0	0	0	0	0	1	-360	360;
	3	4	0	0.1	0	40	0	0	0	0	1	-360	360;
];
