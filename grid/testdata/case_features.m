%% Syntax and data features the parser must accept.
%  - non-contiguous bus numbers, several generators on one bus,
%  - an out-of-service generator and branch, a zero-capacity generator,
%  - rateA = 0 (unlimited), a transformer tap, a phase shifter,
%  - commas, several rows on one line, trailing comments, "..." continuation,
%  - a piecewise-linear cost, an extra field and a cell array to skip.
function mpc = case_features
mpc.version = '2';
mpc.baseMVA = 100.0;   % system base

mpc.bus = [
	10, 3, 0, 0, 0, 0, 1, 1, 0, 138, 1, 1.1, 0.9;
	20	1	50	10	5	0	1	1	0	138	1	1.1	0.9; 30 2 40 5 0 0 1 1 0 138 1 1.1 0.9;
	% a comment row inside a matrix
	45	1	30	5	0	0	1	1	0	138	1	1.1	0.9   % trailing comment
	99	4	0	0	0	0	1	1	0	138	1	1.1	0.9;
];

mpc.gen = [
	10	0	0	50	-50	1	100	1	100	0	0	0	0	0	0	0	0	0	0	0	0;
	10	0	0	50	-50	1	100	1	60	10	0	0	0	0	0	0	0	0	0	0	0;
	30	0	0	50	-50	1	100	0	80	0	0	0	0	0	0	0	0	0	0	0	0;
	30	0	0	50	-50	1	100	1	0	0	0	0	0	0	0	0	0	0	0	0	0;
	45	0	0	50	-50	1	100	1	40	0 ...
		0	0	0	0	0	0	0	0	0	0	0;
];

mpc.gencost = [
	2	0	0	3	0.01	20	100;
	2	0	0	2	30	0;
	2	0	0	3	0	50	0;
	2	0	0	1	0;
	1	0	0	3	0	0	20	400	40	1000;
];

mpc.branch = [
	10	20	0.01	0.1	0	0	0	0	0	0	1	-30	30;
	10	30	0.01	0.1	0	150	0	0	0.95	0	1	-30	30;
	20	45	0.01	0.2	0	80	0	0	0	-5	1	-30	30;
	30	45	0.01	0.1	0	100	0	0	0	0	1	0	0;
	20	30	0.01	0.1	0	100	0	0	0	0	0	-30	30;
	45	99	0.01	0.1	0	100	0	0	0	0	1	-30	30;
];

mpc.areas = [1 10];
mpc.bus_name = {
	'A';
	'B';
};
