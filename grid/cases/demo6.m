% demo6: a small six-bus network written for privopt's demo and examples.
% Four generators with linear costs (12, 20, 35, 50 $/MWh), 360 MW of load on
% three buses, and a meshed grid whose 1-4 corridor is rated low enough to
% congest, so that nodal prices differ.
function mpc = demo6
mpc.version = '2';
mpc.baseMVA = 100;

%	bus	type	Pd	Qd	Gs	Bs	area	Vm	Va	baseKV	zone	Vmax	Vmin
mpc.bus = [
	1	3	0	0	0	0	1	1	0	230	1	1.1	0.9;
	2	2	0	0	0	0	1	1	0	230	1	1.1	0.9;
	3	1	120	30	0	0	1	1	0	230	1	1.1	0.9;
	4	1	150	40	0	0	1	1	0	230	1	1.1	0.9;
	5	2	0	0	0	0	1	1	0	230	1	1.1	0.9;
	6	2	90	20	0	0	1	1	0	230	1	1.1	0.9;
];

%	bus	Pg	Qg	Qmax	Qmin	Vg	mBase	status	Pmax	Pmin
mpc.gen = [
	1	0	0	100	-100	1	100	1	250	0;
	2	0	0	100	-100	1	100	1	150	0;
	5	0	0	100	-100	1	100	1	200	0;
	6	0	0	100	-100	1	100	1	100	0;
];

%	2	startup	shutdown	n	c1	c0
mpc.gencost = [
	2	0	0	2	12	0;
	2	0	0	2	20	0;
	2	0	0	2	35	0;
	2	0	0	2	50	0;
];

%	fbus	tbus	r	x	b	rateA	rateB	rateC	ratio	angle	status	angmin	angmax
mpc.branch = [
	1	2	0.01	0.10	0	200	200	200	0	0	1	-30	30;
	1	4	0.02	0.20	0	80	80	80	0	0	1	-30	30;
	2	3	0.015	0.15	0	200	200	200	0	0	1	-30	30;
	2	4	0.01	0.10	0	150	150	150	0	0	1	-30	30;
	3	5	0.01	0.10	0	200	200	200	0	0	1	-30	30;
	4	5	0.02	0.20	0	200	200	200	0	0	1	-30	30;
	5	6	0.01	0.10	0	100	100	100	0	0	1	-30	30;
	3	6	0.025	0.25	0	100	100	100	0	0	1	-30	30;
];
