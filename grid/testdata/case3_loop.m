% Three-bus loop with hand-computable DC power flow.
% Generator at bus 1 (reference) serves 90 MW at bus 3 through two paths:
% 1-3 (x = 0.1) and 1-2-3 (x = 0.2), so f13 = 60, f12 = f23 = 30 MW.
function mpc = case3_loop
mpc.version = '2';
mpc.baseMVA = 100;
mpc.bus = [
	1	3	0	0	0	0	1	1	0	230	1	1.1	0.9;
	2	1	0	0	0	0	1	1	0	230	1	1.1	0.9;
	3	1	90	0	0	0	1	1	0	230	1	1.1	0.9;
];
mpc.gen = [
	1	0	0	100	-100	1	100	1	200	0;
];
mpc.gencost = [
	2	0	0	3	0	10	0;
];
mpc.branch = [
	1	2	0.01	0.1	0	0	0	0	0	0	1	-360	360;
	1	3	0.01	0.1	0	0	0	0	0	0	1	-360	360;
	2	3	0.01	0.1	0	0	0	0	0	0	1	-360	360;
];
