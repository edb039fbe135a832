* min x1 + 2 x2 - x3 s.t. x1 + x2 + x3 = 4, 1 <= x1 - x2 <= 3, x2 + x3 <= 3,
* 0 <= x1 <= 10, x2 >= -1, x3 free. Optimum x = (1, -1, 4), value -5.
NAME          RANGES
ROWS
 N  COST
 E  R1
 G  R2
 L  R3
COLUMNS
    X1        COST         1.0   R1           1.0
    X1        R2           1.0
    X2        COST         2.0   R1           1.0
    X2        R2          -1.0   R3           1.0
    X3        COST        -1.0   R1           1.0
    X3        R3           1.0
RHS
    RHS       R1           4.0   R2           1.0
    RHS       R3           3.0
RANGES
    RNG       R2           2.0
BOUNDS
 UP BND       X1          10.0
 LO BND       X2          -1.0
 FR BND       X3
ENDATA
