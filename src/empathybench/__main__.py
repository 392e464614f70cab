from empathybench.cli import main

main()
