"""skillshelf.instructions"""
