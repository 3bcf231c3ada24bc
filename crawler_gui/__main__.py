import sys

from crawler_gui.main import main

sys.exit(main())
