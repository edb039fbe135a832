% The network of case_3winding_v34.raw written by hand in MATPOWER form, with
% the three-winding transformer 1-3-4 as its star (T) equivalent (bus 8, the
% number after the largest bus) and the system switching device 5-7 as a
% branch of reactance 0.0001. Reference for the RAW reader's star expansion.
%
% Star impedances, computed by hand from the RAW file's record 2 (CZ = 2:
% per unit on SBASE1-2 = 200, SBASE2-3 = 150, SBASE3-1 = 100 MVA; system base
% 100 MVA):
%   Z12 = (0.002 + j0.08)·100/200  = 0.001   + j0.04
%   Z23 = (0.0045 + j0.18)·100/150 = 0.003   + j0.12
%   Z31 = (0.0025 + j0.10)·100/100 = 0.0025  + j0.10
%   Z1 = (Z12 + Z31 − Z23)/2 = 0.00025 + j0.01   (bus 1, WINDV1 = 1.025, 150 MVA)
%   Z2 = (Z12 + Z23 − Z31)/2 = 0.00075 + j0.03   (bus 3, WINDV2 = 1.0,   250 MVA)
%   Z3 = (Z23 + Z31 − Z12)/2 = 0.00225 + j0.09   (bus 4, WINDV3 = 0.975,  60 MVA)
% Costs: linear, 10, 25 and 40 $/MWh; the winding from bus 1 to the star (150 MVA)
% congests.
function mpc = case_3winding
mpc.version = '2';
mpc.baseMVA = 100;
mpc.bus = [
	1	3	0	0	0	0	1	1	0	345	1	1.1	0.9;
	2	2	0	0	0	0	1	1	0	345	1	1.1	0.9;
	3	1	180	0	0	0	1	1	0	138	1	1.1	0.9;
	4	2	20	0	0	0	1	1	0	13.8	1	1.1	0.9;
	5	1	100	0	0	0	1	1	0	138	1	1.1	0.9;
	7	1	10	0	0	0	1	1	0	138	1	1.1	0.9;
	8	1	0	0	0	0	1	1	0	345	1	1.1	0.9;
];
mpc.gen = [
	1	0	0	100	-100	1	100	1	300	0;
	2	0	0	100	-100	1	100	1	200	0;
	4	0	0	100	-100	1	100	1	100	0;
];
mpc.gencost = [
	2	0	0	2	10	0;
	2	0	0	2	25	0;
	2	0	0	2	40	0;
];
mpc.branch = [
	1	2	0.002	0.02	0	400	400	400	0	0	1	-360	360;
	3	5	0.01	0.1	0	40	40	40	0	0	1	-360	360;
	5	7	0	0.0001	0	0	0	0	0	0	1	-360	360;
	2	5	0.001	0.05	0	150	150	150	1	0	1	-360	360;
	1	8	0.00025	0.01	0	150	150	150	1.025	0	1	-360	360;
	3	8	0.00075	0.03	0	250	250	250	1	0	1	-360	360;
	4	8	0.00225	0.09	0	60	60	60	0.975	0	1	-360	360;
];
