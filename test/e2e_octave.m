% Octave (octave-cli) in double: real and complex matrix products, with
% transposes, conjugate transposes and strided views; prints a checksum of
% each result so that a preloaded run can be compared exactly with a plain
% one.  Knows nothing of hopblas.
rand("state", 2024); randn("state", 2024);
A = randn(300, 200); B = randn(200, 150);
Z = randn(120, 90) + 1i * randn(120, 90); W = randn(90, 70) + 1i * randn(90, 70);
h = @(x) hash("md5", char(typecast([real(x(:)); imag(x(:))], "uint8")'));
printf("A*B %s\n", h(A * B));
printf("A'*A(:,1:50) %s\n", h(A' * A(:, 1:50)));
printf("B'*A' %s\n", h(B' * A'));
printf("A(1:2:end,:)*B %s\n", h(A(1:2:end, :) * B));
printf("Z*W %s\n", h(Z * W));
printf("Z'*Z(:,1:40) %s\n", h(Z' * Z(:, 1:40)));
printf("Z.'*Z(:,1:40) %s\n", h(Z.' * Z(:, 1:40)));
printf("small 7x5x3 %s\n", h(A(1:7, 1:3) * B(1:3, 1:5)));
