% case3_congested with its limited branch 1-3 built as two identical circuits
% (each x = 0.2, limit 25 MW): together they are the one branch of x = 0.1
% and limit 50 MW of case3_congested, so the hand solution is the same
% (each circuit binds at 25 MW when the load at bus 3 is 75 MW or more; then
% LMPs 10, 30, 50 $/MWh).
function mpc = case3_twins
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
	1	3	0	0.2	0	25	0	0	0	0	1	-360	360;
	1	3	0	0.2	0	25	0	0	0	0	1	-360	360;
	2	3	0	0.1	0	0	0	0	0	0	1	-360	360;
];
